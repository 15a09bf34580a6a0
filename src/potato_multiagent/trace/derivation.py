"""``derive()``: a trace record in, every structure the widgets annotate out, as plain data."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Iterable, List, Optional

from .contention import contention_regions, read_calls
from .flow import edges_and_handoffs
from .names import lookup_path, name_of
from .options import DEFAULTS
from .problems import problem
from .steps import TOOL_RESULT, Step, agent_fields, read_step
from .threads import next_in_thread, resolve_parents
from .tools import attribute_results, collect_tool_calls, link_results


@dataclass
class Derivation:
    """What the derivation found in one record; :meth:`to_dict` is the JSON ``derive.js`` returns."""

    steps: List[Step] = field(default_factory=list)
    agents: List[str] = field(default_factory=list)
    edges: List[dict] = field(default_factory=list)
    handoffs: List[dict] = field(default_factory=list)
    tool_calls: List[dict] = field(default_factory=list)
    calls: List[dict] = field(default_factory=list)
    contentions: List[dict] = field(default_factory=list)
    problems: List[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"steps": [step.to_dict() for step in self.steps], "agents": list(self.agents),
                "edges": self.edges, "handoffs": self.handoffs, "tool_calls": self.tool_calls,
                "calls": self.calls, "contentions": self.contentions, "problems": self.problems}

    def graph(self):
        """The agents as a ``networkx.DiGraph``; edges carry ``count`` and ``steps``.

        >>> g = derive({"steps": [{"agent": "A"}, {"agent": "B"}, {"agent": "A"}]}).graph()
        >>> sorted(g.edges(data="count"))
        [('A', 'B', 1), ('B', 'A', 1)]
        """
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self.agents)
        for edge in self.edges:
            graph.add_edge(edge["from"], edge["to"], count=edge["count"], steps=list(edge["steps"]))
        return graph


def derive(record: Any, **options: Any) -> Derivation:
    """Derive steps, agents, edges, handoffs, tool calls and contention regions from one record.

    ``options`` are those of :class:`~.options.DeriveOptions` (``steps_key``, ``agent_key``,
    ``calls_key``, ``resource_key``, ``agents``, ``agent_qualifiers``), each with its default.
    Never raises on bad input: what cannot be read is reported in ``problems``.

    >>> d = derive({"steps": [{"role": "Orchestrator (-> WebSurfer)"}, {"role": "WebSurfer"}]})
    >>> d.agents, [(e["from"], e["to"]) for e in d.edges]
    (['Orchestrator', 'WebSurfer'], [('Orchestrator', 'WebSurfer')])
    """
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"derive() got unknown option(s) {', '.join(unknown)} (known: {', '.join(DEFAULTS)})")
    with _collector_paused():
        return _derive(record, **{**DEFAULTS, **options})


@contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector for one derivation.

    A derivation allocates tens of thousands of objects that outlive it (its output) and none that
    can form a cycle, so a collection during it finds no garbage and only re-scans the young
    objects, and every other run the whole heap with the record in it: at 10,000 steps and 10,000
    timed calls about 60 young collections and half a full one per run, 15-20 ms of 90
    (docs/performance.md, *How the page is kept cheap*). Reference counting frees as usual; the collector is left as
    it was found, also when the derivation raises.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _derive(record: Any, *, steps_key: str, agent_key: str, calls_key: str, resource_key: str,
            agents: Optional[Iterable[Any]], agent_qualifiers: bool) -> Derivation:
    result = Derivation()
    found, raw_steps = lookup_path(record, steps_key)
    if not (found and isinstance(raw_steps, list)):
        result.problems.append(problem("steps", "steps_not_list", f"{steps_key!r} does not hold a list of steps"))
        raw_steps = []
    steps, tool_calls, problems = result.steps, result.tool_calls, result.problems
    fields = agent_fields(agent_key)
    for index, raw in enumerate(raw_steps):
        step = read_step(index, raw, fields, agent_qualifiers)
        steps.append(step)
        collect_tool_calls(index, raw, step.agent, tool_calls, problems)
    result.steps = resolve_parents(result.steps, raw_steps)
    link_results(result.tool_calls, raw_steps, result.steps, next_in_thread(result.steps))
    result.steps = attribute_results(result.steps, result.tool_calls)
    result.edges, result.handoffs = edges_and_handoffs(result.steps)

    found, raw_calls = lookup_path(record, calls_key)
    if found and raw_calls is not None and not isinstance(raw_calls, list):
        result.problems.append(problem("calls", "calls_not_list", f"{calls_key!r} does not hold a list of calls"))
    if found and isinstance(raw_calls, list):
        result.calls = read_calls(raw_calls, agent_key, resource_key, result.problems)
        result.contentions = contention_regions(result.calls)

    result.agents = _agent_list(agents or (), result.steps, result.calls)
    return result


def _agent_list(roster: Iterable[Any], steps: List[Step], calls: List[dict]) -> List[str]:
    """Roster first, then step agents and addressees by first appearance, then call agents."""
    ordered = dict.fromkeys(name for name in map(name_of, roster) if name is not None)
    add = ordered.setdefault
    for step in steps:
        if step.kind == TOOL_RESULT:
            continue  # the caller is listed already; a tool adds no agent
        if step.agent is not None:
            add(step.agent)
        if step.to is not None:
            add(step.to)
    ordered.update(dict.fromkeys(map(itemgetter("agent"), calls)))  # a name seen before keeps its place
    return list(ordered)
