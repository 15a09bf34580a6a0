"""`potato-multiagent convert`: what every format shares (inputs, messages, per-record errors, whole writes)."""

import json

import pytest

from potato_multiagent.cli import main

RUN = {"question": "q", "history": [{"name": "A", "content": "hi"}, {"name": "B", "content": "ok"}],
       "mistake_agent": "B", "mistake_step": "1", "mistake_reason": "wrong"}


def write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def run(args, capsys):
    code = main(["convert", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_records_and_gold_are_written_as_json_lines_and_counted(tmp_path, capsys):
    source = write(tmp_path / "in" / "Hand-Crafted" / "1.json", RUN)
    code, out, _ = run(["--from", "who-and-when", source, "-o", tmp_path / "out" / "records.jsonl",
                        "--gold", tmp_path / "out" / "gold.jsonl"], capsys)
    assert code == 0
    assert out.splitlines() == [f"wrote 1 record(s) to {tmp_path / 'out' / 'records.jsonl'}",
                                f"wrote 1 gold line(s) to {tmp_path / 'out' / 'gold.jsonl'}"]
    [record] = [json.loads(line) for line in (tmp_path / "out" / "records.jsonl").read_text().splitlines()]
    assert record["id"] == "Hand-Crafted-1" and "mistake_agent" not in record
    assert json.loads((tmp_path / "out" / "gold.jsonl").read_text())["gold"]["mistake_step"] == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["gold.jsonl", "records.jsonl"]


def test_ground_truth_without_gold_is_dropped_with_a_note(tmp_path, capsys):
    source = write(tmp_path / "Hand-Crafted" / "1.json", RUN)
    code, _, err = run(["--from", "who-and-when", source, "-o", tmp_path / "records.jsonl"], capsys)
    assert code == 0
    assert "1 record(s) have ground truth; pass --gold FILE to keep it" in err
    assert "mistake" not in (tmp_path / "records.jsonl").read_text()


def test_with_strict_a_bad_input_writes_nothing_and_leaves_earlier_output_untouched(tmp_path, capsys):
    good = write(tmp_path / "runs" / "1.json", RUN)
    bad = write(tmp_path / "runs" / "2.json", {**RUN, "mistake_step": "9"})
    output = write(tmp_path / "records.jsonl", "earlier output\n")
    code, out, err = run(["--from", "who-and-when", "--strict", good, bad, "-o", output,
                          "--gold", tmp_path / "gold.jsonl"], capsys)
    assert code == 1 and out == ""
    assert err == f"error: {bad}:1: mistake_step: 9 is not a step of this run (history has 2 steps)\n"
    assert output.read_text() == "earlier output\n"
    assert not (tmp_path / "gold.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl", "runs"]


def test_two_records_with_one_id_are_refused_naming_both_places(tmp_path, capsys):
    first = write(tmp_path / "a.jsonl", {"messages": [{"source": "x", "type": "TextMessage", "content": "1"}], "id": "run"})
    second = write(tmp_path / "b.jsonl", {"messages": [{"source": "y", "type": "TextMessage", "content": "2"}], "id": "run"})
    code, _, err = run(["--from", "autogen", "--strict", first, second, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 1
    assert err == f"error: {second}:1: id: 'run' is already the id of the record from {first}:1\n"
    code, _, err = run(["--from", "autogen", first, second, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 0
    assert err.splitlines()[0] == f"skipped: {second}:1: id: 'run' is already the id of the record from {first}:1"
    [kept] = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert kept["steps"][0]["source"] == "x"


def test_a_bad_record_is_named_and_the_others_are_written(tmp_path, capsys):
    good = write(tmp_path / "runs" / "Hand-Crafted" / "1.json", RUN)
    bad = write(tmp_path / "runs" / "Hand-Crafted" / "2.json", {**RUN, "mistake_step": "9"})
    also_good = write(tmp_path / "runs" / "Hand-Crafted" / "3.json", RUN)
    output = write(tmp_path / "records.jsonl", "earlier output\n")
    code, out, err = run(["--from", "who-and-when", tmp_path / "runs", "-o", output,
                          "--gold", tmp_path / "gold.jsonl"], capsys)
    assert code == 0
    assert err.splitlines() == [
        f"skipped: {bad}:1: mistake_step: 9 is not a step of this run (history has 2 steps)",
        "note: 1 part(s) of the input could not be read and were left out (listed above); "
        "--strict writes nothing instead"]
    assert out.splitlines()[0] == f"wrote 2 record(s) to {output}"
    assert [json.loads(line)["id"] for line in output.read_text().splitlines()] == ["Hand-Crafted-1", "Hand-Crafted-3"]
    assert [json.loads(line)["id"] for line in (tmp_path / "gold.jsonl").read_text().splitlines()] == [
        "Hand-Crafted-1", "Hand-Crafted-3"]
    assert good.exists() and also_good.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.jsonl", "records.jsonl", "runs"]


def test_a_broken_json_line_is_named_and_the_lines_around_it_convert(tmp_path, capsys):
    lines = [json.dumps(RUN), '{"question": "q", "history": [', json.dumps({**RUN, "question": "third"})]
    source = write(tmp_path / "Hand-Crafted" / "runs.jsonl", "\n".join(lines) + "\n")
    code, _, err = run(["--from", "who-and-when", source, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 0
    assert err.splitlines()[0].startswith(f"skipped: {source}:2: input: not a JSON line (")
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [record["question"] for record in records] == ["q", "third"]


def test_when_no_record_can_be_read_nothing_is_written(tmp_path, capsys):
    bad = write(tmp_path / "Hand-Crafted" / "1.json", {**RUN, "history": "none"})
    code, out, err = run(["--from", "who-and-when", bad, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"skipped: {bad}:1: history: expected the run's steps (a list), found a string",
        "error: no record could be read; nothing written"]
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("name, content, message", [
    ("empty.json", "  \n", "{path}: input: the file is empty"),
    ("broken.json", '[{"source": "a", "type": "TextMessage"},\n {"source": ', "{path}:2: input: not valid JSON"),
    ("tail.json", '[{"source": "a", "type": "TextMessage", "content": ""}] x', "{path}:1: input: not valid JSON"),
    ("lines.jsonl", '{"a": 1}\n{"a": 2\n', "{path}:2: input: not a JSON line"),
    ("nan.json", '{"messages": [{"source": "a", "type": "TextMessage", "content": NaN}]}',
     "{path}:1: item: holds NaN or Infinity, which JSON does not allow"),
])
def test_unreadable_inputs_say_where(tmp_path, capsys, name, content, message):
    path = write(tmp_path / name, content)
    code, _, err = run(["--from", "autogen", "--strict", path, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 1
    assert err.startswith("error: " + message.format(path=path)), err
    _, _, err = run(["--from", "autogen", path, "-o", tmp_path / "out.jsonl"], capsys)
    assert err.startswith("skipped: " + message.format(path=path)), err


def test_missing_inputs_and_empty_folders_are_named(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert run(["--from", "mast", tmp_path / "nope.json", "-o", tmp_path / "o.jsonl"], capsys)[2] == \
        f"error: {tmp_path / 'nope.json'}: input: no such file or folder\n"
    assert run(["--from", "mast", tmp_path / "empty", "-o", tmp_path / "o.jsonl"], capsys)[2] == \
        f"error: {tmp_path / 'empty'}: input: the folder holds no .json, .jsonl, .parquet, .log or .txt file\n"


def test_a_byte_order_mark_and_a_pretty_printed_document_are_read(tmp_path, capsys):
    path = tmp_path / "chat.json"
    path.write_text("\ufeff" + json.dumps({"id": "c", "chat_history": [{"name": "A", "role": "user", "content": "x"}]},
                                          indent=2), encoding="utf-8")
    code, _, _ = run(["--from", "autogen", path, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 0
    assert json.loads((tmp_path / "out.jsonl").read_text())["id"] == "c"


def test_the_help_lists_every_format(capsys):
    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    help_text = capsys.readouterr().out
    for name in ("who-and-when", "autogen", "openai-agents", "otel-genai", "dpbench", "mast"):
        assert name in help_text
