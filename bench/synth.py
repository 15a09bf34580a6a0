"""Seeded synthetic traces: the same records on every run, of any size.

A record of size N has N steps by 20 agents and N timed resource calls:

- steps: ordinary turns, turns addressed to another agent (`to`), and explicit handoff events
  (`type: handoff`), with speaker changes chosen so that about N/2 handoffs result;
- tool calls: N in all, in every shape the derivation reads (OpenAI `tool_calls`, flat
  `tool_calls`, `tool_call`, Anthropic `tool_use` content blocks, `action` objects and strings);
- calls: N `{agent, tool, resource, start, end}` with numeric times (the built-in reads only
  numbers), arriving steadily on a few shared resources so that many of them overlap.

Everything comes from one `random.Random(seed)`; no global state, no clock.
"""

from __future__ import annotations

import json
import random
from typing import Any, Dict, List

AGENTS = [
    "Planner", "Researcher", "Coder", "Reviewer", "Tester", "Critic", "Librarian", "Analyst",
    "Writer", "Editor", "Verifier", "Booker", "Navigator", "WebSurfer", "FileSurfer", "Executor",
    "Summarizer", "Scheduler", "Auditor", "Orchestrator",
]
TOOLS = ["search", "read_file", "write_file", "run_tests", "http_get", "sql_query", "calendar.book",
         "python", "browser.click", "send_email"]
RESOURCES = [f"{kind}:{n}" for kind in ("db", "cache", "file", "queue") for n in range(5)]
WORDS = ("the plan needs a direct flight and the cheapest fare so check the schedule again before "
         "booking then confirm the code with the verifier and report back to the planner with "
         "sources tests pass after the fix but the reviewer wants one more case").split()

DEFAULT_SEED = 20260107

# Step mix: explicit handoff events, then for ordinary turns how often the speaker changes and how
# often a turn addresses someone. About 0.05 + 0.95 * 0.45 = 0.48 handoffs per step.
HANDOFF_EVENT_SHARE = 0.05
SPEAKER_CHANGE_SHARE = 0.45
ADDRESSED_SHARE = 0.2
# Calls: one starts every CALL_SPACING_S seconds on one of the 20 resources and runs for a uniform
# duration in CALL_DURATION_S, so each resource sees overlapping bursts: at 5,000 calls about 1,100
# contention regions, and about 4,000 overlapping pairs of calls by different agents (what the
# built-in draws; the teardown's 5,000-call record had 4,990).
CALL_SPACING_S = 0.25
CALL_DURATION_S = (0.5, 8.0)


def trace_record(n_steps: int, n_calls: int | None = None, seed: int = DEFAULT_SEED,
                 record_id: str | None = None) -> Dict[str, Any]:
    """One record: `{id, task, steps, calls}` with `n_steps` steps and `n_calls` calls
    (default `n_steps`; 0 gives a record without calls)."""
    rng = random.Random(f"{seed}:{n_steps}:{n_calls}")
    calls = n_steps if n_calls is None else n_calls
    record: Dict[str, Any] = {
        "id": record_id or f"synthetic-{n_steps}",
        "task": f"Synthetic multi-agent run: {n_steps} steps, {calls} timed calls (seed {seed}).",
        "steps": steps(rng, n_steps),
    }
    if calls:
        record["calls"] = timed_calls(rng, calls)
    return record


def calls_record(n_calls: int, seed: int = DEFAULT_SEED) -> Dict[str, Any]:
    """A record with only timed calls (for timing the contention sweep on its own)."""
    rng = random.Random(f"{seed}:calls:{n_calls}")
    return {"id": f"synthetic-calls-{n_calls}", "steps": [], "calls": timed_calls(rng, n_calls)}


# --------------------------------------------------------------------------- steps


def steps(rng: random.Random, count: int) -> List[Dict[str, Any]]:
    kinds = ["handoff" if rng.random() < HANDOFF_EVENT_SHARE else "turn" for _ in range(count)]
    calls_per_turn = _spread_calls(rng, kinds.count("turn"), count)
    result, speaker, turn = [], rng.choice(AGENTS), 0
    for kind in kinds:
        if kind == "handoff":
            target = _other_agent(rng, speaker)
            result.append({"type": "handoff", "from_agent": speaker, "to_agent": target,
                           "content": f"Handing over to {target}: {_sentence(rng)}"})
            speaker = target
            continue
        if rng.random() < SPEAKER_CHANGE_SHARE:
            speaker = _other_agent(rng, speaker)
        step: Dict[str, Any] = {"agent": speaker}
        if rng.random() < ADDRESSED_SHARE:
            step["to"] = _other_agent(rng, speaker)
        _add_tool_calls(rng, step, calls_per_turn[turn])
        turn += 1
        result.append(step)
    return result


def _spread_calls(rng: random.Random, turns: int, total: int) -> List[int]:
    """How many tool calls each turn carries: 0, 1 or 2, summing to `total` (when 2 per turn
    allows it), so a record of N steps has N tool calls."""
    total = min(total, 2 * turns)
    counts = [1] * turns
    positions = list(range(turns))
    rng.shuffle(positions)
    extra = total - turns  # > 0: some turns get two; < 0: some get none
    doubles = max(extra, 0) + turns // 5
    nones = doubles - extra
    for position in positions[:doubles]:
        counts[position] = 2
    for position in positions[doubles:doubles + nones]:
        counts[position] = 0
    return counts


def _add_tool_calls(rng: random.Random, step: Dict[str, Any], count: int) -> None:
    """Text plus `count` calls in one of the shapes a step can carry them in."""
    text = _sentence(rng)
    if count == 0:
        step["content"] = text
        return
    shapes = ["openai", "flat", "anthropic"] if count == 2 else \
        ["openai", "flat", "tool_call", "anthropic", "action_object", "action_string"]
    shape = rng.choice(shapes)
    calls = [_call(rng) for _ in range(count)]
    if shape == "anthropic":
        step["content"] = [{"type": "text", "text": text}] + [
            {"type": "tool_use", "id": call_id, "name": tool, "input": args} for call_id, tool, args in calls]
        return
    step["content"] = text
    if shape == "openai":
        step["tool_calls"] = [{"id": call_id, "type": "function",
                               "function": {"name": tool, "arguments": json.dumps(args)}}
                              for call_id, tool, args in calls]
    elif shape == "flat":
        step["tool_calls"] = [{"id": call_id, "name": tool, "arguments": args} for call_id, tool, args in calls]
    elif shape == "tool_call":
        call_id, tool, args = calls[0]
        step["tool_call"] = {"call_id": call_id, "tool": tool, "args": args}
    elif shape == "action_object":
        _, tool, args = calls[0]
        step["action"] = {"tool": tool, "tool_input": args}
    else:
        _, tool, args = calls[0]
        step["action"] = f"{tool}({json.dumps(args)})"


def _call(rng: random.Random) -> tuple:
    call_id = f"call_{rng.getrandbits(48):012x}"
    args = {"query": " ".join(rng.choices(WORDS, k=3)), "limit": rng.randint(1, 50)}
    return call_id, rng.choice(TOOLS), args


# --------------------------------------------------------------------------- timed calls


def timed_calls(rng: random.Random, count: int, agents: List[str] = AGENTS,
                resources: List[str] = RESOURCES) -> List[Dict[str, Any]]:
    calls = []
    for k in range(count):
        start = round(k * CALL_SPACING_S + rng.uniform(0, CALL_SPACING_S), 3)
        calls.append({"agent": rng.choice(agents), "tool": rng.choice(TOOLS), "resource": rng.choice(resources),
                      "start": start, "end": round(start + rng.uniform(*CALL_DURATION_S), 3)})
    return calls


# --------------------------------------------------------------------------- helpers


def _other_agent(rng: random.Random, agent: str) -> str:
    choice = rng.choice(AGENTS[:-1])
    return AGENTS[-1] if choice == agent else choice


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 24))
    return " ".join(words).capitalize() + "."


# --------------------------------------------------------------------------- records for page readiness by length
# Issue 18's record: N steps by 12 agents, a tool call on every 4th step, N timed calls on 40 shared
# resources. Plain-text steps (`agent`, `content`), so Potato's `agent_trace` display shows every
# step too (it drops steps whose `content` is not a string of text).

SCALE_AGENTS = AGENTS[:12]
SCALE_RESOURCES = [f"{kind}:{n}" for kind in ("db", "cache", "file", "queue") for n in range(10)]
SCALE_TOOL_CALL_EVERY = 4


def scale_record(n_steps: int, seed: int = DEFAULT_SEED) -> Dict[str, Any]:
    """`{id, task, steps, calls}`: `n_steps` steps by 12 agents (speaker changes as in `steps`),
    an OpenAI-shaped tool call on every 4th step, `n_steps` timed calls on 40 resources."""
    rng = random.Random(f"{seed}:scale:{n_steps}")
    speaker, result = rng.choice(SCALE_AGENTS), []
    for k in range(n_steps):
        if rng.random() < SPEAKER_CHANGE_SHARE:
            speaker = _other_agent_of(rng, speaker, SCALE_AGENTS)
        step: Dict[str, Any] = {"agent": speaker, "content": _sentence(rng)}
        if k % SCALE_TOOL_CALL_EVERY == SCALE_TOOL_CALL_EVERY - 1:
            call_id, tool, args = _call(rng)
            step["tool_calls"] = [{"id": call_id, "type": "function",
                                   "function": {"name": tool, "arguments": json.dumps(args)}}]
        result.append(step)
    return {"id": f"synthetic-scale-{n_steps}",
            "task": f"Synthetic multi-agent run: {n_steps} steps by 12 agents, {n_steps} timed calls (seed {seed}).",
            "steps": result, "calls": timed_calls(rng, n_steps, SCALE_AGENTS, SCALE_RESOURCES)}


def nested_layout(record: Dict[str, Any]) -> Dict[str, Any]:
    """The same record with its lists under one object, `trace: {steps, calls}` (read with
    `steps_key: trace.steps`, `calls_key: trace.calls`). Potato 2.12.1 copies into its
    `<script id="instance_data">` only a record's top-level strings, numbers and lists, so this
    layout keeps the trace out of that second copy (see docs/performance.md)."""
    lists = {key: record[key] for key in ("steps", "calls") if key in record}
    rest = {key: value for key, value in record.items() if key not in lists}
    return {**rest, "trace": lists}


def _other_agent_of(rng: random.Random, agent: str, agents: List[str]) -> str:
    choice = rng.choice(agents[:-1])
    return agents[-1] if choice == agent else choice
