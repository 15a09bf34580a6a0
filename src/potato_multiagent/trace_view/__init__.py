"""The ``multiagent.trace`` display: the run laid out by its orchestration, linked with the widgets."""

from .config import DISPLAY_TYPE, TraceViewConfig, parse_trace_view_config, trace_fields

__all__ = ["DISPLAY_TYPE", "TraceViewConfig", "parse_trace_view_config", "trace_fields"]
