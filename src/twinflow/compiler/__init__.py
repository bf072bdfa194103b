"""Graph compiler: pure Program->Program passes (one per file), the pipeline, and codegen."""
from .codegen import CompiledProgram, compile_program
from .pipeline import DEFAULT_PASSES, optimize
from .program import Program

__all__ = ["CompiledProgram", "DEFAULT_PASSES", "Program", "compile_program", "optimize"]
