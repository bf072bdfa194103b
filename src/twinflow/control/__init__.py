"""Control flow: cond/case/switch_case, while_loop, TensorArray, map_fn/scan/foldl/foldr.

In graphs these are functional ops holding sub-graphs (If/Case/While); eagerly, plain Python.
"""
