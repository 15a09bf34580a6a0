"""What one stored value decides, unit by unit, in words: the common ground of adjudication and
of a judge's accuracy against gold.

A *unit* is what agreement matches across annotators (the attribution of a run, a handoff by its
identity, a call, a region, a behaviour, a score cell, an edge); its *decision* is the judged part
in words (``WebSurfer #4``, ``flags: lost_context; quality 2``, ``verdict wrong_tool``). Units come
from the type's export adapter rows, so they are identified exactly as export and agreement
identify them. Free text (a reason, a note) is context, not a decision: two annotators who pick
the same agent and step for different words agree.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional

from .types import adapter_for
from .types import scheme_for
from .trace import Derivation, derive
from .trace.jsjson import strict_loads

Decisions = Dict[str, str]
"""``{unit label: decision in words}``."""

NOT_JUDGED = {
    "failure_attribution": "nothing",
    "handoff_review": "not reviewed",
    "tool_call_review": "no verdict",
    "tool_contention": "unlabelled",
    "emergent_behavior": "none",
    "agent_scorecard": "not scored",
    "agent_interaction_graph": "normal",
    "mast": "not tagged",
}
"""The decision of a unit a value leaves out, in the type's own words."""


def number(step: Any) -> str:
    """A 0-based step index as annotators see it: ``#N`` = index + 1."""
    return "no step" if step is None else f"#{int(step) + 1}"


def _attribution(rows: List[dict], config) -> Decisions:
    row = rows[0]
    agent = row["responsible_agent"] if row["responsible_agent"] is not None else "no agent"
    return {"attribution": f"{agent} {number(row['decisive_step'])}"}


def _handoffs(rows: List[dict], config) -> Decisions:
    found = {}
    for row in rows:
        unit = f"handoff {row['from']} {number(row['from_step'])} -> {row['to']} {number(row['step'])}"
        if not row["reviewed"]:
            continue
        flags = [flag for flag in config.flags if row.get(f"flag_{flag}")]
        words = [f"flags {', '.join(flags)}" if flags else "no flag"]
        if row["quality"] is not None:
            words.append(f"quality {row['quality']}")
        found[unit] = "; ".join(words)
    return found


def _calls(rows: List[dict], config) -> Decisions:
    found = {}
    for row in rows:
        if row["verdict"] is None:
            continue
        unit = f"call {row['tool']} by {row['agent']} at {number(row['step'])}"
        if getattr(config, "multi_verdict", False):
            given = [v for v in config.verdict_options if row.get(f"verdict_{v}")]
            found[unit] = f"verdicts {', '.join(given)}"
        else:
            found[unit] = f"verdict {row['verdict']}"
    return found


def _regions(rows: List[dict], config) -> Decisions:
    return {f"region {row['region']}": f"label {row['label']}" for row in rows if row["label"] is not None}


def _behaviors(rows: List[dict], config) -> Decisions:
    turns: Dict[str, set] = {behavior: set() for behavior in config.behaviors}
    for row in rows:
        if not row["none_observed"]:
            turns.setdefault(row["behavior"], set()).update(row["turns"])
    return {f"behaviour '{behavior}'": (f"turns {', '.join(number(t) for t in sorted(marked))}" if marked else "none")
            for behavior, marked in turns.items()}


def _scorecard(rows: List[dict], config) -> Decisions:
    found = {}
    for row in rows:
        if row["scope"] == "milestone":
            reached = f"reached at {number(row['reached_step'])}" if row["reached_step"] is not None else "reached"
            found[f"milestone '{row['item']}'"] = reached if row["reached"] else "not reached"
        else:
            who = row["agent"] if row["scope"] == "agent" else "team"
            found[f"{who} '{row['item']}'"] = "not applicable" if row["not_applicable"] else f"score {row['score']}"
    return found


def _graph(rows: List[dict], config) -> Decisions:
    path = sorted((row for row in rows if row["element"] == "agent" and row["critical"]),
                  key=lambda row: row["path_position"])
    found = {"critical path": " -> ".join(row["agent"] for row in path) or "none"}
    for row in rows:
        if row["element"] == "edge" and row["status"] != "normal":
            found[f"edge {row['from']} -> {row['to']}"] = row["status"]
    return found


def _mast(rows: List[dict], config) -> Decisions:
    """Each step tag (``#4 (Coder) 1.3 Step repetition``: tagged), and each mode of the run (``whole
    run: 1.3 Step repetition``: present or absent, wherever it was tagged)."""
    found = {}
    for row in rows:
        label = f"{row['mode']} {row['mode_name']}" if row["mode_name"] else row["mode"]
        if row["level"] == "step":
            agent = row["step_agent"] if row["step_agent"] is not None else "no agent"
            found[f"{number(row['step'])} ({agent}) {label}"] = "tagged"
        else:
            found[f"whole run: {label}"] = "present" if row["present"] else "absent"
    return found


DESCRIBERS: Dict[str, Callable[[List[dict], Any], Decisions]] = {
    "failure_attribution": _attribution, "handoff_review": _handoffs, "tool_call_review": _calls,
    "tool_contention": _regions, "emergent_behavior": _behaviors, "agent_scorecard": _scorecard,
    "agent_interaction_graph": _graph, "mast": _mast,
}


def decisions(scheme: Mapping[str, Any], value: Any, record: Any,
              derivation: Optional[Derivation] = None) -> Decisions:
    """The decisions of one *valid* stored value (object or JSON text) of ``scheme`` (a config dict)."""
    cls = scheme_for(str(scheme["annotation_type"]))
    config, problems = cls.parse_config(dict(scheme))
    if config is None:
        raise ValueError(f"{scheme.get('name')}: config problems: {'; '.join(problems)}")
    parsed = cls.Value.model_validate(strict_loads(value) if isinstance(value, str) else value)
    if derivation is None:
        derivation = derive(record, **config.derive_options())
    rows = adapter_for(cls.widget).rows(parsed, derivation, config)
    return DESCRIBERS[cls.widget](rows, config)


def differences(widget: str, by_judge: Mapping[str, Decisions]) -> Dict[str, Dict[str, str]]:
    """``{unit: {judge: decision}}`` for every unit on which the judges' decisions differ
    (a unit one judge left out counts as the type's "not judged" word, e.g. ``not reviewed``)."""
    missing = NOT_JUDGED[widget]
    units = list(dict.fromkeys(unit for found in by_judge.values() for unit in found))
    differing = {}
    for unit in units:
        said = {judge: found.get(unit, missing) for judge, found in by_judge.items()}
        if len(set(said.values())) > 1:
            differing[unit] = said
    return differing
