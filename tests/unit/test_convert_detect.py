"""Every converter refuses another framework's file, and `--from auto` names what it recognised.

On files the real frameworks wrote (tests/fixtures/real/) and the public corpus: the expected
format and description of each are written by hand from where the file came from.
"""

import json
from pathlib import Path

import pytest

from potato_multiagent.cli import main
from potato_multiagent.convert import FORMATS, convert_inputs

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
CORPUS = ROOT.parent / "shared" / "corpus"

# one file per kind of source: (path, the format that reads it, what the error says it looks like)
SOURCES = [
    (REAL / "langgraph" / "supervisor.messages.json", "langgraph",
     "a LangGraph/LangChain message list (messages_to_dict, model_dump or dumpd)"),
    (REAL / "langgraph" / "swarm.model_dump.json", "langgraph",
     "a LangGraph/LangChain message list (messages_to_dict, model_dump or dumpd)"),
    (REAL / "langgraph" / "supervisor.otlp.jsonl", "openinference",
     "OpenTelemetry spans with OpenInference attributes from LangGraph"),
    (REAL / "crewai" / "hierarchical.otlp.jsonl", "openinference",
     "OpenTelemetry spans with OpenInference attributes from CrewAI"),
    (REAL / "crewai" / "sequential.log.json", "crewai", "a CrewAI task log (output_log_file)"),
    (REAL / "openinference" / "smolagents" / "manager.console.json", "openinference",
     "OpenTelemetry spans with OpenInference attributes from smolagents"),
    (REAL / "otel" / "triage.otlp-hex.json", "otel-genai", "OpenTelemetry spans with GenAI attributes"),
    (REAL / "otel" / "autogen" / "swarm.otlp.json", "otel-genai",
     "OpenTelemetry spans with GenAI attributes from AutoGen"),
    (REAL / "openai-agents" / "triage.json", "openai-agents", "the OpenAI Agents SDK's exported traces and spans"),
    (REAL / "autogen" / "swarm.task_result.json", "autogen", "an AutoGen AgentChat TaskResult"),
    (REAL / "autogen" / "swarm.state.json", "autogen", "an AutoGen AgentChat team.save_state()"),
    (REAL / "ag2" / "groupchat_messages.json", "autogen", "AG2 chat messages ({name, role, content})"),
    (REAL / "ag2" / "chat_result.json", "autogen", "an AG2 ChatResult"),
    (REAL / "adk" / "team.session.json", "adk", "a Google ADK session (Session.model_dump_json)"),
    (REAL / "adk" / "team.otlp.jsonl", "otel-genai", "OpenTelemetry spans with GenAI attributes from Google ADK"),
    (REAL / "adk" / "crash.openinference.otlp.jsonl", ("openinference", "otel-genai"),
     "OpenTelemetry spans with OpenInference attributes from Google ADK"),
    (REAL / "ag2-classic" / "groupchat.runtime_log.jsonl", "autogen", "an AG2 Classic runtime_logging file"),
    (REAL / "ag2-classic" / "groupchat.otlp.jsonl", "otel-genai", "OpenTelemetry spans with GenAI attributes from AG2"),
    (REAL / "ag2-1x" / "team.events.jsonl", "autogen", "ag2 1.x stream events (serialize_value)"),
    (REAL / "ag2-1x" / "crash.otlp.jsonl", "otel-genai", "OpenTelemetry spans with GenAI attributes from AG2"),
    (REAL / "pydantic-ai" / "team.messages.json", "pydantic-ai", "pydantic-ai messages (all_messages_json)"),
    (REAL / "pydantic-ai" / "team.console.json", "otel-genai", "OpenTelemetry spans with GenAI attributes from pydantic-ai"),
    (REAL / "pydantic-ai" / "crash.openinference.otlp.jsonl", ("openinference", "otel-genai"),
     "OpenTelemetry spans with OpenInference attributes from pydantic-ai"),
]
CORPUS_SOURCES = [
    (CORPUS / "who_and_when" / "Hand-Crafted" / "1.json", "who-and-when", "Who&When runs (history, mistake_agent)"),
    (CORPUS / "mast" / "AG2_GSM-Plus_trace2.json", "mast", "MAST/MAD records (mas_name, trace)"),
]
ALL_SOURCES = SOURCES + [source for source in CORPUS_SOURCES if source[0].exists()]


def run(args, capsys):
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path, reader, what", ALL_SOURCES, ids=[s[0].name for s in ALL_SOURCES])
def test_each_other_converter_refuses_the_file_with_one_named_error(tmp_path, capsys, path, reader, what):
    """``reader``: the format that reads the file, or all those that do (spans carrying both
    OpenInference and GenAI attributes), the first named in the message."""
    readers = reader if isinstance(reader, tuple) else (reader,)
    existing = tmp_path / "records.jsonl"
    existing.write_text('{"id": "kept"}\n', encoding="utf-8")
    for fmt in FORMATS:
        if fmt in readers:
            continue
        for strict in ([], ["--strict"]):
            code, out, err = run(["convert", "--from", fmt, path, "-o", existing, *strict], capsys)
            assert code == 1, (fmt, err)
            assert err.splitlines() == [f"error: {path}: this file looks like {what}, which --from {readers[0]} "
                                        f"reads, not --from {fmt}"], (fmt, err)
            assert out == ""
            assert existing.read_text(encoding="utf-8") == '{"id": "kept"}\n'  # nothing written
            assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl"]


@pytest.mark.parametrize("path, reader, what", ALL_SOURCES, ids=[s[0].name for s in ALL_SOURCES])
def test_auto_reads_each_file_with_its_own_format_and_says_so(tmp_path, capsys, path, reader, what):
    reader = reader[0] if isinstance(reader, tuple) else reader
    code, out, err = run(["convert", "--from", "auto", path, "-o", tmp_path / "auto.jsonl"], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == f"recognised 1 file(s) as {what}: read with --from {reader}"
    code, _, err = run(["convert", "--from", reader, path, "-o", tmp_path / "named.jsonl"], capsys)
    assert code == 0, err
    assert (tmp_path / "auto.jsonl").read_text() == (tmp_path / "named.jsonl").read_text()


def test_auto_reads_a_folder_of_mixed_sources_format_by_format(capsys):
    conversion = convert_inputs("auto", [REAL / "crewai"])
    assert conversion.recognised == [("crewai", "a CrewAI task log (output_log_file)", 3),
                                     ("openinference", "OpenTelemetry spans with OpenInference attributes from CrewAI", 4)]
    ids = [record["id"] for record in conversion.records]
    assert ids[:3] == ["crash.log", "hierarchical.log", "sequential.log"] and len(ids) == 3 + 4


def test_auto_refuses_a_shape_it_does_not_know_and_writes_nothing(tmp_path, capsys):
    odd = tmp_path / "notes.json"
    odd.write_text(json.dumps([{"speaker": "A", "said": "hi"}]), encoding="utf-8")
    code, out, err = run(["convert", "--from", "auto", odd, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 1 and out == ""
    assert err.splitlines() == [f"error: {odd}: not a trace format potato-multiagent recognises (objects with keys "
                                f"said, speaker); name one with --from (see: potato-multiagent convert --help)"]
    assert not (tmp_path / "out.jsonl").exists()


def test_a_shape_no_format_claims_is_left_to_the_named_converter(tmp_path, capsys):
    """Only a shape another format reads is refused: the converter's own error names the field."""
    odd = tmp_path / "notes.json"
    odd.write_text(json.dumps([{"speaker": "A", "said": "hi"}]), encoding="utf-8")
    code, _, err = run(["convert", "--from", "autogen", odd, "-o", tmp_path / "out.jsonl"], capsys)
    assert code == 1
    assert "neither an AutoGen conversation" in err


def test_init_without_from_names_what_it_recognised(tmp_path, capsys):
    code, out, err = run(["init", REAL / "langgraph" / "swarm.model_dump.json", "-o", tmp_path / "task"], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == ("recognised 1 file(s) as a LangGraph/LangChain message list (messages_to_dict, "
                                   "model_dump or dumpd): read with --from langgraph")
    header = (tmp_path / "task" / "config.yaml").read_text(encoding="utf-8").splitlines()[:2]
    assert header == ["# Written by `potato-multiagent init --from auto`. Start it with: potato start config.yaml",
                      "# The inputs were recognised as --from langgraph."]
