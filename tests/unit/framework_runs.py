"""What the tests of the real framework fixtures (test_convert_real_<framework>.py) read from a record."""

import json

from potato_multiagent.convert import convert_inputs


def one_record(fmt, path):
    """The one record ``path`` converts to with ``--from fmt``."""
    [record] = convert_inputs(fmt, [path]).records
    return record


def span_calls(record):
    """``(agent, tool, call id, arguments, result, error)`` of each tool-call step of a span format, in order."""
    return [(step.get("agent"), step["tool_call"]["name"], step["tool_call"]["id"],
             json.loads(step["tool_call"]["arguments"]), step["result"], step["tool_call"].get("error"))
            for step in record["steps"] if "tool_call" in step]


def handoffs(derivation):
    """``(from, to, kind)`` of every handoff the derivation found."""
    return [(h["from"], h["to"], h["kind"]) for h in derivation.handoffs]


def errors(record):
    """``(agent, error)`` of every step marked failed."""
    return [(step.get("agent"), step["error"]) for step in record["steps"] if "error" in step]
