"""Graph compiler: pure Program->Program passes (one per file), the pipeline, and codegen.

Every graph runs through this lowering: ``tw.function`` bodies, the branches and loop bodies of
control-flow ops (``control/subgraph.compiled``), and ``tw.compat.v1.Session.run``
(``fetch.compile_fetches``).
"""
from .codegen import CompiledProgram, compile_program
from .fetch import compile_fetches, fetch_program, run_graph
from .pipeline import DEFAULT_PASSES, optimize
from .program import Program

__all__ = ["CompiledProgram", "DEFAULT_PASSES", "Program", "compile_fetches", "compile_program",
           "fetch_program", "optimize", "run_graph"]
