"""`potato-multiagent export`: tidy tables per scheme, built from task folders laid out as Potato does.

Values are written the way Potato 2.12.1 stores them (`user_state.json` pairs, plus the
`annotation_history.jsonl` line it logs for each save); each one is checked with `validate_value`
before it is written, so a test never rests on a value the widget could not have saved.
"""

import json

import pandas as pd
import pytest
import yaml

from potato_multiagent import load_task, validate_value
from potato_multiagent.cli import main

FA = "multiagent.failure_attribution"

RECORDS = [
    {"id": "run-1", "steps": [
        {"agent": "Planner", "content": "Plan: Booker books the 12:40 flight."},
        {"agent": "Booker", "content": "Searching.",
         "tool_calls": [{"id": "c1", "function": {"name": "search", "arguments": "{\"to\": \"OSL\"}"}}]},
        {"agent": "Booker", "content": "Booked 15 March."},
        {"agent": "Planner", "content": "Done."}],
     "calls": [{"agent": "Planner", "resource": "db", "start": 0, "end": 2},
               {"agent": "Booker", "resource": "db", "start": 1, "end": 3}]},
    {"id": "run-2", "steps": [{"agent": "Solo", "content": "hi"}, {"agent": "Helper", "content": "ok"}]},
    {"id": "run-3", "steps": [
        {"agent": "A", "content": "go", "tool_calls": [{"id": "t1", "function": {"name": "search", "arguments": "{}"}},
                                                        {"id": "t2", "function": {"name": "fetch", "arguments": "{}"}}]},
        {"agent": "B", "content": "more", "tool_calls": [{"id": "t3", "function": {"name": "search", "arguments": "{}"}},
                                                          {"id": "t4", "function": {"name": "book", "arguments": "{}"}}]}],
     "calls": [{"agent": "A", "resource": "db", "start": 0, "end": 2}, {"agent": "B", "resource": "db", "start": 1, "end": 3},
               {"agent": "A", "resource": "lock", "start": 5, "end": 6},
               {"agent": "B", "resource": "lock", "start": 5.5, "end": 7}]},
]


def scheme(annotation_type, name, **keys):
    return {"annotation_type": annotation_type, "name": name, "description": f"{name}?", **keys}


def make_task(tmp_path, schemes, records=RECORDS):
    config = {"annotation_task_name": f"export test {tmp_path.name}", "task_dir": ".",
              "data_files": ["data/runs.jsonl"], "item_properties": {"id_key": "id", "text_key": "id"},
              "output_annotation_dir": "annotation_output", "plugins": ["multiagent"], "require_password": False,
              "annotation_schemes": schemes}
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return tmp_path / "config.yaml"


def save(config_path, user, instance, values, when="2026-11-30T15:42:07.332649", check=True, records=RECORDS):
    """Store `{scheme: value}` for one user and instance, as Potato does, with a history line each."""
    config = yaml.safe_load(config_path.read_text())
    schemes = {s["name"]: s for s in config["annotation_schemes"]}
    record = next(r for r in records if r["id"] == instance)
    folder = config_path.parent / "annotation_output" / user
    folder.mkdir(parents=True, exist_ok=True)
    state_path = folder / "user_state.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {
        "user_id": user, "instance_id_to_label_to_value": {}}
    pairs = state["instance_id_to_label_to_value"].setdefault(instance, [])
    for name, value in values.items():
        text = value if isinstance(value, str) else json.dumps(value)
        if check and schemes[name]["annotation_type"].startswith("multiagent."):
            assert validate_value(schemes[name]["annotation_type"], schemes[name], text, record) == [], (name, value)
        label_name = value if schemes[name]["annotation_type"] == "radio" else name
        pairs.append([{"schema": name, "name": label_name}, text])
        with open(folder / "annotation_history.jsonl", "a", encoding="utf-8") as history:
            history.write(json.dumps({"timestamp": when, "user_id": user, "instance_id": instance,
                                      "action_type": "add_label", "schema_name": name, "label_name": label_name,
                                      "new_value": text}) + "\n")
    state_path.write_text(json.dumps(state))


def timed(config_path, user, instance, *gaps):
    """Potato's interaction events for one user and item, ``gaps`` seconds apart (its page posts
    them; ``user_state.json`` keeps them under ``instance_id_to_behavioral_data``)."""
    state_path = config_path.parent / "annotation_output" / user / "user_state.json"
    state = json.loads(state_path.read_text())
    at, events = 1796400000.0, []
    for gap in (0,) + gaps:
        at += gap
        events.append({"event_type": "activity", "timestamp": at, "target": "", "instance_id": instance,
                       "client_timestamp": None, "metadata": {}})
    state.setdefault("instance_id_to_behavioral_data", {})[instance] = {
        "instance_id": instance, "session_start": events[0]["timestamp"], "session_end": None, "total_time_ms": 0,
        "interactions": events}
    state_path.write_text(json.dumps(state))


def attribution(agent, step, reason=""):
    return {"responsible_agent": agent, "decisive_step": step, "reason": reason}


def export(config, out, fmt, capsys):
    code = main(["export", str(config), "--format", fmt, "--out", str(out)])
    return code, capsys.readouterr().out


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --------------------------------------------------------------------------- failure attribution


def test_one_row_per_attribution_joined_with_the_decisive_step(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "bob", "run-1", {"attribution": {**attribution("Booker", 2, "wrong date"), "certainty": "uncertain",
                                                  "plausible_steps": [{"step": 1}, {"step": 3}]}},
         when="2026-11-30T10:00:00")
    save(config, "alice", "run-1", {"attribution": attribution("Planner", None)}, when="2026-11-30T09:00:00")
    save(config, "alice", "run-2", {"attribution": attribution(None, 1)})
    code, out = export(config, tmp_path / "out", "jsonl", capsys)
    assert code == 0
    assert out.splitlines()[0] == f"attribution: 3 row(s) -> {tmp_path / 'out' / 'attribution.jsonl'}"
    assert read_jsonl(tmp_path / "out" / "attribution.jsonl") == [
        {"instance_id": "run-1", "user": "alice", "timestamp": "2026-11-30T09:00:00", "responsible_agent": "Planner",
         "decisive_step": None, "decisive_step_number": None, "reason": "", "step_agent": None, "step_text": None,
         "certainty": None, "plausible_steps": None, "plausible_steps_number": None},
        {"instance_id": "run-1", "user": "bob", "timestamp": "2026-11-30T10:00:00", "responsible_agent": "Booker",
         "decisive_step": 2, "decisive_step_number": 3, "reason": "wrong date", "step_agent": "Booker",
         "step_text": "Booked 15 March.", "certainty": "uncertain", "plausible_steps": [1, 3],
         "plausible_steps_number": [2, 4]},
        {"instance_id": "run-2", "user": "alice", "timestamp": "2026-11-30T15:42:07.332649",
         "responsible_agent": None, "decisive_step": 1, "decisive_step_number": 2, "reason": "",
         "step_agent": "Helper", "step_text": "ok", "certainty": None, "plausible_steps": None,
         "plausible_steps_number": None},
    ]


def test_invalid_values_go_to_the_report_never_into_the_table(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Ghost", 9)}, check=False)
    save(config, "bob", "run-1", {"attribution": '{"responsible_agent": "Booker"'}, check=False)
    save(config, "carol", "run-1", {"attribution": attribution("Booker", 1)})
    code, out = export(config, tmp_path / "out", "jsonl", capsys)
    assert code == 0
    assert [row["user"] for row in read_jsonl(tmp_path / "out" / "attribution.jsonl")] == ["carol"]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [(entry["user"], entry["problems"]) for entry in report["invalid"]] == [
        ("alice", ["responsible_agent: 'Ghost' is not in this trace", "decisive_step: '9' is not in this trace"]),
        ("bob", [report["invalid"][1]["problems"][0]])]
    assert report["invalid"][1]["problems"][0].startswith("value: not valid JSON")
    assert report["invalid"][1]["value"] == '{"responsible_agent": "Booker"'
    assert "left out: 2 invalid value(s)" in out


def test_values_with_stale_step_references_are_left_out_and_counted_apart(tmp_path, capsys):
    """A decisive step saved on another step (its identity no longer the step's: docs/step-references.md)."""
    from tests.step_identity import fingerprint

    config = make_task(tmp_path, [scheme(FA, "attribution")])
    stale = {**attribution("Booker", 1), "decisive_step_ref": fingerprint("Booker", "Booked 15 March.")}
    save(config, "alice", "run-1", {"attribution": stale}, check=False)
    save(config, "bob", "run-1", {"attribution": attribution("Ghost", 9)}, check=False)
    save(config, "carol", "run-1", {"attribution": {**attribution("Booker", 2),
                                                    "decisive_step_ref": fingerprint("Booker", "Booked 15 March.")}})
    code, out = export(config, tmp_path / "out", "jsonl", capsys)
    assert code == 0
    assert [row["user"] for row in read_jsonl(tmp_path / "out" / "attribution.jsonl")] == ["carol"]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [(entry["user"], entry["stale"]) for entry in report["invalid"]] == [("alice", True), ("bob", False)]
    assert report["stale"] == {"count": 1}
    assert "left out: 1 value(s) with stale step references" in out
    assert "left out: 1 invalid value(s)" in out
    code = main(["agreement", str(config)])
    agreement = capsys.readouterr().out
    assert "left out: 1 value(s) with stale step references" in agreement and "left out: 1 invalid value(s)" in agreement


def test_values_saved_while_hidden_by_display_logic_are_left_out_and_counted(tmp_path, capsys):
    config = make_task(tmp_path, [
        {"annotation_type": "radio", "name": "outcome", "description": "Outcome?", "labels": ["success", "failure"]},
        scheme(FA, "attribution", display_logic={"show_when": [{"schema": "outcome", "operator": "equals",
                                                                 "value": "failure"}]})])
    save(config, "alice", "run-1", {"outcome": "success", "attribution": attribution("Booker", 2)})
    save(config, "bob", "run-1", {"outcome": "failure", "attribution": attribution("Booker", 2)})
    code, out = export(config, tmp_path / "out", "jsonl", capsys)
    assert code == 0
    assert [row["user"] for row in read_jsonl(tmp_path / "out" / "attribution.jsonl")] == ["bob"]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["hidden"] == {"count": 1, "values": [{"scheme": "attribution", "instance_id": "run-1",
                                                        "user": "alice", "timestamp": "2026-11-30T15:42:07.332649"}]}
    assert "left out: 1 value(s) saved while display_logic hid their scheme" in out


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_and_parquet_hold_the_same_table_as_the_notebook(tmp_path, capsys, fmt):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 2, 'said "15 March", not 14')})
    save(config, "bob", "run-1", {"attribution": attribution("Planner", None, "ünïcode, commas\nand lines")})
    assert export(config, tmp_path / "out", fmt, capsys)[0] == 0
    path = tmp_path / "out" / f"attribution.{fmt}"
    written = pd.read_csv(path, keep_default_na=False, na_values=[""]) if fmt == "csv" else pd.read_parquet(path)
    expected = load_task(config).annotations("attribution")
    pd.testing.assert_frame_equal(written.convert_dtypes(), expected, check_dtype=fmt == "parquet")


def test_lists_are_semicolon_joined_in_csv_and_native_in_jsonl(tmp_path, capsys):
    config = make_task(tmp_path, [scheme("multiagent.emergent_behavior", "behaviour")])
    save(config, "alice", "run-1", {"behaviour": {"groupthink": {"turns": [0, 3], "note": "agree blindly"}}})
    assert export(config, tmp_path / "out", "csv", capsys)[0] == 0
    written = pd.read_csv(tmp_path / "out" / "behaviour.csv", dtype=str)
    assert (written.loc[0, "turns"], written.loc[0, "turns_number"], written.loc[0, "agents"]) == ("0;3", "1;4", "Planner")
    assert export(config, tmp_path / "out", "jsonl", capsys)[0] == 0
    [row] = read_jsonl(tmp_path / "out" / "behaviour.jsonl")
    assert (row["turns"], row["turns_number"], row["agents"]) == ([0, 3], [1, 4], ["Planner"])


def test_minutes_per_run_come_from_potatos_timing_with_idle_gaps_capped(tmp_path, capsys):
    """alice: events 60 s and 30 s apart on run-1 (1.5 min); bob: 120 s, then a 40-minute pause
    that Potato counts as 5 minutes (7 min); carol opened run-2 for 30 s and answered nothing."""
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 1)})
    save(config, "bob", "run-1", {"attribution": attribution("Planner", 0)})
    save(config, "carol", "run-3", {"attribution": attribution("A", 0)})
    timed(config, "alice", "run-1", 60, 30)
    timed(config, "bob", "run-1", 120, 2400)
    timed(config, "carol", "run-2", 30)
    timed(config, "carol", "run-3", 90, 90)
    assert export(config, tmp_path / "out", "jsonl", capsys)[0] == 0
    assert read_jsonl(tmp_path / "out" / "minutes_per_run.jsonl") == [
        {"instance_id": "run-1", "user": "alice", "minutes": 1.5, "answered": True, "note": ""},
        {"instance_id": "run-1", "user": "bob", "minutes": 7.0, "answered": True, "note": ""},
        {"instance_id": "run-2", "user": "carol", "minutes": 0.5, "answered": False, "note": ""},
        {"instance_id": "run-3", "user": "carol", "minutes": 3.0, "answered": True, "note": ""}]
    assert load_task(config).minutes_per_run()["minutes"].tolist() == [1.5, 7.0, 0.5, 3.0]
    assert main(["agreement", str(config), "--json"]) == 0
    figures = [f for f in json.loads(capsys.readouterr().out) if f["type"] == "time"]
    # carol's unanswered run-2 is not a run annotated: the median is over 1.5, 3.0 and 7.0
    assert [(f["annotator"], f["value"], f["items"], f["annotators"], f["note"]) for f in figures] == [
        (None, 3.0, 3, 3, ""), ("alice", 1.5, 1, 1, ""), ("bob", 7.0, 1, 1, ""), ("carol", 3.0, 1, 1, "")]
    assert main(["agreement", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("time per run, median minutes (Potato's active time: the gaps between page events, "
                     "each at most 5 minutes)")
    assert lines[at + 1:at + 5] == [
        "  everyone" + " " * 37 + "   3.0 min   runs 3, annotators 3",
        "  alice" + " " * 40 + "   1.5 min   runs 1",
        "  bob" + " " * 42 + "   7.0 min   runs 1",
        "  carol" + " " * 40 + "   3.0 min   runs 1"]


NO_EVENTS = ("no page events saved for this run yet (Potato writes them with the annotator's next save; "
             "a value written without the page has none)")


def test_a_run_without_a_time_is_blank_with_the_reason_never_a_crash_nor_a_zero(tmp_path, capsys):
    """alice's run-1 has events 120 s apart (2 min); her run-2 was saved by a script (no events);
    bob's run-1 has one event (no gap to measure); bob's run-2 record is damaged (interactions is
    not a list); carol answered run-1 with no events saved, and opened run-3 once and answered
    nothing there (no row: nothing to report)."""
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    save(config, "alice", "run-1", {"attribution": attribution("Booker", 1)})
    save(config, "alice", "run-2", {"attribution": attribution("Solo", 0)})
    save(config, "bob", "run-1", {"attribution": attribution("Planner", 0)})
    save(config, "bob", "run-2", {"attribution": attribution("Helper", 1)})
    save(config, "carol", "run-1", {"attribution": attribution("Planner", 0)})
    timed(config, "alice", "run-1", 120)
    timed(config, "bob", "run-1")
    timed(config, "bob", "run-2", 30)
    timed(config, "carol", "run-3")
    state_path = config.parent / "annotation_output" / "bob" / "user_state.json"
    state = json.loads(state_path.read_text())
    state["instance_id_to_behavioral_data"]["run-2"]["interactions"] = 7
    state_path.write_text(json.dumps(state))

    assert export(config, tmp_path / "out", "jsonl", capsys)[0] == 0
    damaged = ("Potato's timing record (instance_id_to_behavioral_data in user_state.json) cannot be read "
               "('int' object is not iterable)")
    span = "the page events saved for this run span no time yet (Potato writes them with the annotator's next save)"
    assert read_jsonl(tmp_path / "out" / "minutes_per_run.jsonl") == [
        {"instance_id": "run-1", "user": "alice", "minutes": 2.0, "answered": True, "note": ""},
        {"instance_id": "run-1", "user": "bob", "minutes": None, "answered": True, "note": span},
        {"instance_id": "run-1", "user": "carol", "minutes": None, "answered": True, "note": NO_EVENTS},
        {"instance_id": "run-2", "user": "alice", "minutes": None, "answered": True, "note": NO_EVENTS},
        {"instance_id": "run-2", "user": "bob", "minutes": None, "answered": True, "note": damaged}]

    assert main(["agreement", str(config), "--json"]) == 0
    figures = [f for f in json.loads(capsys.readouterr().out) if f["type"] == "time"]
    assert [(f["annotator"], f["value"], f["items"], f["note"]) for f in figures] == [
        (None, 2.0, 1, f"4 answered run(s) without a time left out: {damaged}; {NO_EVENTS}; {span}"),
        ("alice", 2.0, 1, f"1 answered run(s) without a time left out: {NO_EVENTS}"),
        ("bob", None, 0, f"2 answered run(s) without a time left out: {damaged}; {span}"),
        ("carol", None, 0, f"1 answered run(s) without a time left out: {NO_EVENTS}")]
    assert main(["agreement", str(config)]) == 0
    text = capsys.readouterr().out
    assert f"  bob{' ' * 42}   n/a min   runs 0  (2 answered run(s) without a time left out: {damaged}; {span})" in text


def test_no_emergent_behaviour_observed_is_a_row_of_its_own(tmp_path, capsys):
    """An annotator who ticked "No emergent behaviour observed" looked and found nothing: one row says
    so, where before the table had no row for them, as if they had not annotated the run."""
    config = make_task(tmp_path, [scheme("multiagent.emergent_behavior", "behaviour")])
    save(config, "alice", "run-1", {"behaviour": {}})
    save(config, "bob", "run-1", {"behaviour": {"groupthink": {"turns": [1], "note": ""}}})
    assert export(config, tmp_path / "out", "jsonl", capsys)[0] == 0
    rows = {row["user"]: row for row in read_jsonl(tmp_path / "out" / "behaviour.jsonl")}
    assert set(rows) == {"alice", "bob"}
    assert {key: rows["alice"][key] for key in ("behavior", "occurrence", "turns", "agents", "note", "none_observed")} == {
        "behavior": None, "occurrence": None, "turns": [], "agents": [], "note": "", "none_observed": True}
    assert (rows["bob"]["behavior"], rows["bob"]["none_observed"]) == ("groupthink", False)


def test_every_scheme_gets_a_file_with_a_safe_unique_name_and_empty_tables_keep_their_header(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "who/failed?"), scheme(FA, "who_failed_"), scheme(FA, "..")])
    assert export(config, tmp_path / "out", "csv", capsys)[0] == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [table["file"] for table in report["tables"]] == ["who_failed_.csv", "who_failed_-2.csv", "scheme.csv",
                                                             "minutes_per_run.csv"]
    header = (tmp_path / "out" / "scheme.csv").read_text().strip()
    assert header == "instance_id,user,timestamp,responsible_agent,decisive_step,decisive_step_number,reason," \
                     "step_agent,step_text,certainty,plausible_steps,plausible_steps_number"
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_schemes_that_cannot_be_exported_are_reported(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "attribution", steps_key=""), scheme("multiagent.nonsense", "x")])
    code, out = export(config, tmp_path / "out", "csv", capsys)
    assert code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [table["table"] for table in report["tables"]] == ["minutes_per_run"]
    assert report["skipped"][0].startswith("attribution: config problems (steps_key:")
    assert report["skipped"][1] == "x: annotation_type 'multiagent.nonsense' is not provided by this plugin"


def test_a_missing_data_file_is_an_error(tmp_path, capsys):
    config = make_task(tmp_path, [scheme(FA, "attribution")])
    (tmp_path / "data" / "runs.jsonl").unlink()
    assert main(["export", str(config), "--format", "csv", "--out", str(tmp_path / "out")]) == 1
    assert "data_files: 'data/runs.jsonl' not found" in capsys.readouterr().err


# --------------------------------------------------------------------------- the other types


def handoff(index, step, from_step, source, target, flags=(), quality=None, note=""):
    return {"index": index, "step": step, "from_step": from_step, "from": source, "to": target, "explicit": False,
            "flags": list(flags), "quality": quality, "note": note, "bulk": False}


def test_handoff_review_rows_have_a_column_per_flag_and_the_texts_the_handoff_joins(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.handoff_review", "handoffs", flags=["info_loss", "garbling"])])
    save(config, "alice", "run-1", {"handoffs": [handoff(0, 1, 0, "Planner", "Booker", ["garbling"], 2, "date lost"),
                                                 handoff(1, 3, 2, "Booker", "Planner", note="only a note")]})
    frame = load_task(config).annotations("handoffs")
    reviewed, noted = frame.astype(object).where(frame.notna(), None).to_dict("records")
    assert {key: reviewed[key] for key in ("from_step", "step", "from", "to", "reviewed", "flag_info_loss",
                                           "flag_garbling", "quality", "note", "from_text", "to_text")} == {
        "from_step": 0, "step": 1, "from": "Planner", "to": "Booker", "reviewed": True, "flag_info_loss": False,
        "flag_garbling": True, "quality": 2, "note": "date lost", "from_text": "Plan: Booker books the 12:40 flight.",
        "to_text": "Searching."}
    assert (noted["reviewed"], noted["flag_garbling"], noted["quality"], noted["note"]) == (False, None, None, "only a note")


def test_tool_call_review_rows_resolve_the_call_and_its_arguments(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.tool_call_review", "calls")])
    save(config, "alice", "run-1", {"calls": [{"index": 0, "step": 1, "position": 0, "id": "c1", "tool": "search",
                                               "verdict": "wrong_args", "notes": "wrong city"}]})
    [row] = load_task(config).annotations("calls").to_dict("records")
    assert {key: row[key] for key in ("call_index", "call_id", "agent", "tool", "arguments", "verdict", "step_text")} == {
        "call_index": 0, "call_id": "c1", "agent": "Booker", "tool": "search", "arguments": '{"to": "OSL"}',
        "verdict": "wrong_args", "step_text": "Searching."}


def test_multi_verdict_rows_have_a_column_per_verdict_and_a_notes_only_entry_judges_nothing(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.tool_call_review", "calls", multi_verdict=True)])
    save(config, "alice", "run-3", {"calls": [
        {"index": 0, "step": 0, "position": 0, "id": "t1", "tool": "search", "verdict": "wrong_tool",
         "verdicts": ["wrong_tool", "wrong_args"], "notes": ""},
        {"index": 2, "step": 1, "position": 0, "id": "t3", "tool": "search", "verdict": None, "verdicts": [],
         "notes": "look again"}]})
    frame = load_task(config).annotations("calls")
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    flags = [[row[f"verdict_{v}"] for v in ("correct", "wrong_tool", "wrong_args", "wrong_order")] for row in rows]
    assert flags == [[False, True, True, False], [None, None, None, None]]


def region_mark(label, note=""):
    return {"index": 0, "resource": "db", "start": 0, "end": 3, "agents": ["Planner", "Booker"],
            "calls": [{"index": 0, "agent": "Planner", "resource": "db", "start": 0, "end": 2},
                      {"index": 1, "agent": "Booker", "resource": "db", "start": 1, "end": 3}],
            "label": label, "note": note}


def test_tool_contention_rows_describe_the_region_they_label(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.tool_contention", "contention")])
    save(config, "alice", "run-1", {"contention": {"contentions": {"0": "race_condition"},
                                                   "regions": [region_mark("race_condition", "both write")]}})
    frame = load_task(config).annotations("contention")
    [row] = frame.to_dict("records")
    assert (row["region"], row["resource"], row["start"], row["end"], row["agents"], row["calls"], row["label"]) == (
        "db [0, 3) Planner, Booker", "db", 0.0, 3.0, ["Planner", "Booker"], [0, 1], "race_condition")
    assert str(frame["start"].dtype) == "Float64"


def test_agent_scorecard_rows_are_score_cells_and_milestones(tmp_path):
    config = make_task(tmp_path, [scheme("multiagent.agent_scorecard", "scores", agent_dimensions=["contribution"],
                                         team_dimensions=["efficiency"], milestones=["booked"])])
    save(config, "alice", "run-1", {"scores": {"agents": {"Booker": {"contribution": 2}}, "team": {},
                                               "milestones": {}, "not_applicable": {"agents": {}, "team": ["efficiency"]}}})
    rows = load_task(config).annotations("scores").astype(object).where(lambda f: f.notna(), None).to_dict("records")
    assert [(r["scope"], r["agent"], r["item"], r["score"], r["not_applicable"], r["reached"], r["agent_steps"])
            for r in rows] == [("agent", "Booker", "contribution", 2, False, None, 2),
                               ("team", None, "efficiency", None, True, None, None),
                               ("milestone", None, "booked", None, None, False, None)]


def test_interaction_graph_is_two_tables_agents_and_edges(tmp_path, capsys):
    config = make_task(tmp_path, [scheme("multiagent.agent_interaction_graph", "graph")])
    save(config, "alice", "run-1", {"graph": {"critical_nodes": ["Booker"], "edges": {"Planner->Booker": "problematic"},
                                              "edge_marks": [{"from": "Planner", "to": "Booker",
                                                              "status": "problematic"}]}})
    task = load_task(config)
    agents = task.annotations("graph.agents").astype(object).where(lambda f: f.notna(), None)
    assert list(agents.columns) == ["instance_id", "user", "timestamp", "agent", "critical", "path_position"]
    assert [(r["agent"], r["critical"], r["path_position"]) for r in agents.to_dict("records")] == [
        ("Planner", False, None), ("Booker", True, 1)]
    edges = task.annotations("graph.edges")
    assert list(edges.columns) == ["instance_id", "user", "timestamp", "from", "to", "status", "count", "steps",
                                   "steps_number"]
    assert [(r["from"], r["to"], r["status"], r["count"], r["steps"], r["steps_number"])
            for r in edges.to_dict("records")] == [("Planner", "Booker", "problematic", 1, [1], [2]),
                                                   ("Booker", "Planner", "normal", 1, [3], [4])]
    with pytest.raises(KeyError, match=r"no exported table named 'graph' \(tables: graph.agents, graph.edges\)"):
        task.annotations("graph")
    code, out = export(config, tmp_path / "out", "csv", capsys)
    assert code == 0 and out.splitlines()[:2] == [f"graph.agents: 2 row(s) -> {tmp_path / 'out' / 'graph.agents.csv'}",
                                                  f"graph.edges: 2 row(s) -> {tmp_path / 'out' / 'graph.edges.csv'}"]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [(t["table"], t["file"], t["rows"]) for t in report["tables"]] == [
        ("graph.agents", "graph.agents.csv", 2), ("graph.edges", "graph.edges.csv", 2),
        ("minutes_per_run", "minutes_per_run.csv", 1)]   # alice's run-1, answered without a time


# --------------------------------------------------------------------------- the notebook walkthrough


def test_the_notebook_walkthrough_runs_and_shows_the_example_figures():
    import subprocess
    import sys
    from pathlib import Path

    walkthrough = Path(__file__).resolve().parents[2] / "examples" / "notebook" / "walkthrough.py"
    result = subprocess.run([sys.executable, str(walkthrough)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [" ".join(line.split()) for line in result.stdout.splitlines()]
    assert lines[0] == "3 runs: flight-desk-01, flight-desk-02, flight-desk-03"
    assert "handoff #2: planner -> booker (explicit)" in lines
    assert "edge booker -> planner: 1 time(s) at steps [7]" in lines
    # alice and bob pick the same agents everywhere, the same step only on flight-desk-01.
    assert "agent agreement (exact) (pooled) 1.000 3 2" in lines
    assert "step agreement (exact) (pooled) 0.333 3 2" in lines
    assert "step accuracy vs gold bob 0.333 3 1" in lines
    assert lines[-1] == "0 invalid value(s)"


def test_the_notebook_derives_with_the_schemes_keys_and_asks_which_scheme_when_they_differ(tmp_path):
    records = [{"id": "r", "history": [{"name": "A", "content": "x"}, {"name": "B", "content": "y"}],
                "steps": [{"agent": "Z"}]}]
    config = make_task(tmp_path, [scheme(FA, "by_history", steps_key="history")], records=records)
    task = load_task(config)
    assert list(task.records()) == ["r"]
    assert task.derive("r").agents == ["A", "B"]
    assert list(task.graph("r").edges) == [("A", "B")]
    config = make_task(tmp_path, [scheme(FA, "by_history", steps_key="history"), scheme(FA, "by_steps")], records=records)
    task = load_task(config)
    with pytest.raises(ValueError, match="the schemes by_history, by_steps derive differently: pass scheme=NAME"):
        task.derive("r")
    assert task.derive("r", scheme="by_steps").agents == ["Z"]
    with pytest.raises(KeyError, match="no record with id 'nope'"):
        task.derive("nope")
    with pytest.raises(KeyError, match="no exported table named 'nope'"):
        task.annotations("nope")
