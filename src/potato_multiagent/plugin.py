"""Layer 6: the hook Potato calls (entry point ``multiagent`` in group ``potato.plugins``)."""

from __future__ import annotations

from potato.plugins import STATIC_URL_PREFIX

from . import types
from .guard import guard_pages
from .saves import guard_saves
from .served import plugin_bundle, serve_forever, serve_what_the_config_uses


def register(api) -> None:
    """Register every type folder with its declared config keys, and the browser half (bundling.py:
    the runtime, the trace view and every type, built from their modules) joined into one script
    and one style sheet, which browsers keep (their names hold their content's hash); then the
    trace view. Potato serves all of the assets folder, so it is a folder of that bundle alone
    (served.py: the one an installed package came with), never the package with its Python; from
    the first request on, the page loads only what the config uses (served.py). Every
    page the server answers gets its JSON blocks made inert (guard.py): Potato embeds the record
    raw; a save posting a value of one of our schemes that fails its Value model is refused
    (saves.py)."""
    for type_name, scheme in types.SCHEMES.items():
        api.add_schema(type_name, scheme.render, optional_fields=scheme.optional_fields(),
                       description=scheme.summary)
    folders = types.folders()
    bundle = plugin_bundle(types.PACKAGE, folders)
    api.add_assets(str(bundle.folder), scripts=[bundle.script], styles=[bundle.style])
    serve_forever(f"{STATIC_URL_PREFIX}/{api.name}", bundle)
    serve_what_the_config_uses(api.name, f"{STATIC_URL_PREFIX}/{api.name}", types.PACKAGE, folders)
    guard_pages()
    guard_saves()
    register_trace_view(api)


def register_trace_view(api) -> None:
    """The ``multiagent.trace`` display type (its browser half is ``web/trace_view.js``, loaded with
    ``web/``); imported here because it needs Potato's BaseDisplay."""
    from .trace_view.config import DISPLAY_TYPE
    from .trace_view.display import TraceDisplay

    api.add_display(DISPLAY_TYPE, TraceDisplay())
