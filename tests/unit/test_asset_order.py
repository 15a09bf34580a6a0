"""The plugin's asset list loads what each script needs before it (issue 13).

Browser scripts have no imports: their order in ``types.scripts()`` is their dependency order.
"""

from __future__ import annotations

from potato_multiagent import types


def test_web_scripts_load_in_their_declared_dependency_order():
    scripts = types.scripts()
    web = [path for path in scripts if path.startswith("web/")]
    assert web == [f"web/{name}" for name in types.WEB_SCRIPTS]
    # words before the value check (it words problems with them); the core before define()
    assert web.index("web/words.js") < web.index("web/value_shape.js")
    assert web.index("web/windowing.js") < web.index("web/base.js") < web.index("web/sync.js")
    assert web.index("web/sync.js") < web.index("web/runtime.js") < web.index("web/widget.js")
    # the save path is built on base and installed by the core
    assert web.index("web/base.js") < web.index("web/saving.js") < web.index("web/widget.js")
    # the trace view takes the core's page derivation and h; its parts load before it
    view = ["web/trace_view_model.js", "web/trace_view_judgments.js", "web/trace_view_rows.js", "web/trace_view.js"]
    assert web.index("web/widget.js") < web.index(view[0])
    assert [web.index(path) for path in view] == sorted(web.index(path) for path in view)
    # the pager uses windowing's page arithmetic; the runtime offers it as ui.pager
    assert web.index("web/windowing.js") < web.index("web/pager.js") < web.index("web/runtime.js")


def test_every_page_script_of_web_is_listed_and_the_node_shim_is_not():
    on_disk = {path.name for path in types.WEB.glob("*.js")}
    assert on_disk - set(types.WEB_SCRIPTS) == {"node_shim.js"}


def test_each_type_loads_its_marks_before_its_view_after_the_runtime():
    scripts = types.scripts()
    runtime = scripts.index("web/runtime.js")
    for name, folder in types.TYPES.items():
        own = [path for path in scripts if path.startswith(f"types/{name}/")]
        assert own, f"{name} loads no script"
        assert all(scripts.index(path) > runtime for path in own)
        parts = sorted(f"types/{name}/{path.name}" for path in folder.folder.glob("view_*.js"))
        trace = [f"types/{name}/trace.js"] if (folder.folder / "trace.js").is_file() else []
        assert own == [f"types/{name}/marks.js", *parts, f"types/{name}/view.js", *trace], own
