"""Layer 6: the hook Potato calls (entry point ``multiagent`` in group ``potato.plugins``)."""

from __future__ import annotations

from pathlib import Path

from .schemes import SCHEMES

STATIC = Path(__file__).parent / "static"
SHARED_SCRIPTS = ["derive.js", "value_shape.js", "widget.js"]
SHARED_STYLES = ["multiagent.css"]
# Issue 18: the one windowing/paging component every widget's long lists use (after widget.js).
SHARED_SCRIPTS.append("windowing.js")
SHARED_STYLES.append("windowing.css")
TRACE_VIEW_ASSETS = {"scripts": ["trace_view.js"], "styles": ["trace_view.css"]}


def register(api) -> None:
    """Register every type with its declared config keys, and the scripts and styles of the widgets."""
    for type_name, scheme in SCHEMES.items():
        api.add_schema(type_name, scheme.render, optional_fields=scheme.optional_fields(),
                       description=scheme.summary)
    widgets = [scheme.widget for scheme in SCHEMES.values()]
    own_styles = [f"{widget}.css" for widget in widgets if (STATIC / f"{widget}.css").is_file()]
    api.add_assets("static", scripts=SHARED_SCRIPTS + [f"{widget}.js" for widget in widgets]
                   + TRACE_VIEW_ASSETS["scripts"], styles=SHARED_STYLES + own_styles + TRACE_VIEW_ASSETS["styles"])
    register_trace_view(api)


def register_trace_view(api) -> None:
    """The ``multiagent.trace`` display type (imported here: it needs Potato's BaseDisplay)."""
    from .trace_view.config import DISPLAY_TYPE
    from .trace_view.display import TraceDisplay

    api.add_display(DISPLAY_TYPE, TraceDisplay())
