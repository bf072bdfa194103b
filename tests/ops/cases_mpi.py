"""The MPI collective ops run in tests/distribute (they need a communicator, and two workers
to mean anything): no registry cases here, only where they are covered."""
from __future__ import annotations

CASES: list = []

COVERED_ELSEWHERE = {
    "MpiAllReduce": "tests/distribute/test_mpi_ops.py (eager/graph/gradient), test_mpi.py "
                    "(two workers)",
    "MpiAllGather": "tests/distribute/test_mpi_ops.py::test_all_gather_along_an_axis_and_its_"
                    "gradient, test_mpi.py (two workers)",
    "MpiAllGatherGrad": "tests/distribute/test_mpi.py::test_collectives_between_two_workers",
}
