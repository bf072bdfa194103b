"""Elementwise math: arithmetic, transcendental functions, comparisons, logic, casts.

Kernels run without ``infer`` in eager mode, so a kernel that NumPy would silently promote
(``np.exp`` of ints gives float64) checks the dtype kind itself and raises ``TypeError``; ``bind``
then re-runs ``infer``, whose message (naming the op and dtype) is what the user sees.
"""
