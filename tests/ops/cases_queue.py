"""Queue ops: stateful, blocking, with a handle; checked by tests/ops/test_queue_ops.py."""
CASES: list = []

COVERED_ELSEWHERE = {op: "tests/ops/test_queue_ops.py (eager, tw.function and threads)"
                     for op in ("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
                                "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2",
                                "QueueSizeV2", "QueueIsClosedV2")}

COVERED_ELSEWHERE["_CriticalSectionExecute"] = (
    "tests/test_surface16_misc.py::test_critical_section_serializes_read_modify_write")
