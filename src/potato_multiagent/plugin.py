"""Layer 6: the hook Potato calls (entry point ``multiagent`` in group ``potato.plugins``)."""

from __future__ import annotations

from .schemes import SCHEMES

SHARED_SCRIPTS = ["derive.js", "value_shape.js", "widget.js"]
STYLES = ["multiagent.css"]


def register(api) -> None:
    """Register every type with its declared config keys, and the widget scripts and styles."""
    for type_name, scheme in SCHEMES.items():
        api.add_schema(type_name, scheme.render, optional_fields=scheme.optional_fields(),
                       description=scheme.summary)
    widget_scripts = [f"{scheme.widget}.js" for scheme in SCHEMES.values()]
    api.add_assets("static", scripts=SHARED_SCRIPTS + widget_scripts, styles=STYLES)
