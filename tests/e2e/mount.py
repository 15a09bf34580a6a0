"""The fast DOM layer: mount our widgets in a plain page, without Potato, for behaviour that needs
no server (rendering, keyboard, re-render from the hidden input, stale marks).

The page is what Potato's annotation page gives a widget and nothing more: the record in a
`[data-instance-json]` element, the form HTML our scheme's own generator (`Scheme.render`)
returns for the config, and the plugin's own script and style sheet as the plugin registers them
(every part, `served.plugin_bundle`), loaded over file://.
What reaches Potato's saving (autosave, user_state.json, Next/Prev, reload) stays in the e2e
tests against a real server.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from potato_multiagent import types
from potato_multiagent.served import plugin_bundle

from .harness import READY_PROBE

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mounted widgets</title>
{styles}
</head><body>
<input type="hidden" id="instance_id" value="{instance_id}">
<div id="instance-text" data-instance-json="{record}"></div>
<div id="instance-display">{displays}</div>
<div id="annotation-forms">
{forms}
</div>
{scripts}
</body></html>
"""


def page_html(record: Mapping[str, Any], schemes: Sequence[Mapping[str, Any]],
              displays: Sequence[Mapping[str, Any]] = ()) -> str:
    """The page for `record` with one form per scheme (each a Potato `annotation_schemes` entry)
    and the trace views `displays` (`instance_display.fields` entries, drawn by our display)."""
    from potato_multiagent.trace_view.display import TraceDisplay

    bundle = plugin_bundle(types.PACKAGE, types.folders())
    styles = f'<link rel="stylesheet" href="{(bundle.folder / bundle.style).as_uri()}">'
    scripts = f'<script src="{(bundle.folder / bundle.script).as_uri()}"></script>'
    forms = "\n".join(types.SCHEMES[scheme["annotation_type"]].render(dict(scheme))[0] for scheme in schemes)
    shells = "\n".join(TraceDisplay().render(dict(field), record.get(field["key"])) for field in displays)
    return PAGE.format(styles=styles, scripts=scripts, forms=forms, displays=shells,
                       instance_id=html.escape(str(record.get("id", "")), quote=True),
                       record=html.escape(json.dumps(record), quote=True))


def mount(page, folder: Path, record: Mapping[str, Any], schemes: Sequence[Mapping[str, Any]],
          displays: Sequence[Mapping[str, Any]] = ()) -> None:
    """Write the page into `folder`, open it in `page` and wait until every form is rendered."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mounted.html"
    path.write_text(page_html(record, schemes, displays), encoding="utf-8")
    page.add_init_script(READY_PROBE)
    page.goto(path.as_uri())
    page.wait_for_function(
        f"document.querySelectorAll('form.multiagent-form[data-ma-ready=\"true\"]').length === {len(schemes)}",
        timeout=15_000)
