"""``tw.summary``: TensorBoard event files (scalars, histograms, text, images, graphs)."""
from types import SimpleNamespace

from .extras import audio, summary_scope, write, write_raw_pb  # noqa: E402
from .writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    get_step,
    graph,
    histogram,
    image,
    record_if,
    scalar,
    set_step,
    should_record_summaries,
    text,
    trace_export,
    trace_off,
    trace_on,
)

experimental = SimpleNamespace(set_step=set_step, get_step=get_step,
                               summary_scope=summary_scope, write_raw_pb=write_raw_pb)

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush", "graph",
           "histogram", "image", "record_if", "scalar", "should_record_summaries", "text",
           "trace_export", "trace_off", "trace_on", "experimental", "audio", "write"]
