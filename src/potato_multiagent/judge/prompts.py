"""The judge's prompts.

``all-at-once``, ``step-by-step`` and ``binary-search`` are the prompts of Who&When (Zhang et al.,
"Which Agent Causes Task Failures and When?", ICML 2025), from ``Automated_FA/Lib/utils.py`` of
github.com/ag2ai/Agents_Failure_Attribution, Copyright (c) 2025 Ming Yin, MIT licence:

    Permission is hereby granted, free of charge, to any person obtaining a copy of this software
    and associated documentation files (the "Software"), to deal in the Software without
    restriction, including without limitation the rights to use, copy, modify, merge, publish,
    distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
    Software is furnished to do so, subject to the following conditions: The above copyright
    notice and this permission notice shall be included in all copies or substantial portions of
    the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.

Changed from theirs, and only this: the history is numbered as the page numbers it (``#N agent:
text``, #N = index + 1, where theirs numbered the step-by-step history from 0 and showed the other
two unnumbered), so the all-at-once example and the binary-search ranges speak of ``#N``; the
reference answer line is left out when no reference is given (their "without ground truth"
setting); their system message opens the prompt (Potato's endpoints send one user message); and
the step-by-step prompt names the step it asks about (theirs printed a literal ``{idx}``).
``structured``, ``mast`` and the chunk note are ours. Every prompt has a version (a hash of its text), which
the judgments file records per run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import List, Optional

from ..trace import Derivation


@dataclass(frozen=True)
class RunText:
    """What a prompt says about one run."""

    problem: str
    reference: Optional[str]
    lines: List[str]
    """``#N agent: text`` per step, the page's numbering."""
    agents: List[str]


def agent_words(step) -> str:
    """The step's agent as the page names it: ``Orchestrator (thought)``, ``Planner -> Coder``."""
    agent = "no agent" if step.agent is None else str(step.agent)
    words = f"{agent} ({step.qualifier})" if step.qualifier else agent
    if step.to and not (step.qualifier or "").lstrip().startswith(("->", "\u2192")):
        words += f" -> {step.to}"
    return words


def run_text(derivation: Derivation, problem: str, reference: Optional[str]) -> RunText:
    lines = [f"#{step.index + 1} {agent_words(step)}: {step.text}" for step in derivation.steps]
    return RunText(problem, reference, lines, list(derivation.agents))


def _reference(run: RunText) -> str:
    return f"The Answer for the problem is: {run.reference}\n" if run.reference is not None else ""


# --------------------------------------------------------------------------- all at once

ALL_AT_ONCE = (
    "You are a helpful assistant skilled in analyzing conversations.\n\n"
    "You are an AI assistant tasked with analyzing a multi-agent conversation history when solving a real world "
    "problem. The problem is:  {problem}\n"
    "{reference}"
    "Identify which agent made an error, at which step, and explain the reason for the error. "
    "Here's the conversation:\n\n{history}"
    "\n\nBased on this conversation, please predict the following:\n"
    "1. The name of the agent who made a mistake that should be directly responsible for the wrong solution to "
    "the real world problem. If there are no agents that make obvious mistakes, decide one single agent in your "
    "mind. Directly output the name of the Expert.\n"
    "2. In which step the mistake agent first made mistake. Each line of the conversation is a 'step' where an "
    "agent provides input, numbered #1, #2, ... as shown: in a conversation structured as follows:\n"
    "#1 agent a: xx\n#2 agent b: xxxx\n#3 agent c: xxxxx\n#4 agent a: xxxxxxx\n"
    "if the mistake is in agent c's speech, the step number is 3. If the second speech by 'agent a' contains the "
    "mistake, the step number is 4, and so on. Please determine the step number where the first mistake "
    "occurred.\n"
    "3. The reason for your prediction."
    "Please answer in the format: Agent Name: (Your prediction)\n Step Number: (Your prediction)\n "
    "Reason for Mistake: \n"
)


def all_at_once(run: RunText) -> str:
    return ALL_AT_ONCE.format(problem=run.problem, reference=_reference(run), history="\n".join(run.lines))


# --------------------------------------------------------------------------- step by step

STEP_BY_STEP = (
    "You are a precise step-by-step conversation evaluator.\n\n"
    "You are an AI assistant tasked with evaluating the correctness of each step in an ongoing multi-agent "
    "conversation aimed at solving a real-world problem. The problem being addressed is: {problem}. "
    "{reference}"
    "Here is the conversation history up to the current step:\n{left_out}{history}\n\n"
    "The most recent step (#{number}) was by '{agent}'.\n"
    "Your task is to determine whether this most recent agent's action (Step #{number}) contains an error that "
    "could hinder the problem-solving process or lead to an incorrect solution. "
    "Please respond with 'Yes' or 'No' and provide a clear explanation for your judgment. "
    "Note: Please avoid being overly critical in your evaluation. Focus on errors that clearly derail the process."
    "Respond ONLY in the format: 1. Yes/No.\n2. Reason: [Your explanation here]"
)


def step_by_step(run: RunText, index: int, agent: str, first: int = 0) -> str:
    """The prompt for step ``index`` (0-based), showing the history from ``first`` (the window)."""
    left_out = (f"(steps #1 to #{first} are left out: the run is longer than the model's context)\n"
                if first > 0 else "")
    return STEP_BY_STEP.format(problem=run.problem, reference=_reference(run), left_out=left_out,
                               history="\n".join(run.lines[first:index + 1]), number=index + 1, agent=agent)


# --------------------------------------------------------------------------- binary search

BINARY_SEARCH = (
    "You are an AI assistant specializing in localizing errors in conversation segments.\n\n"
    "You are an AI assistant tasked with analyzing a segment of a multi-agent conversation. Multiple agents are "
    "collaborating to address a user query, with the goal of resolving the query through their collective "
    "dialogue.\n"
    "Your primary task is to identify the location of the most critical mistake within the provided segment. "
    "Determine which half of the segment contains the single step where this crucial error occurs, ultimately "
    "leading to the failure in resolving the user\u2019s query.\n"
    "The problem to address is as follows: {problem}\n"
    "{reference}"
    "Review the following conversation segment {range}:\n\n{history}\n\n"
    "Based on your analysis, predict whether the most critical error is more likely to be located in the upper "
    "half ({upper}) or the lower half ({lower}) of this segment.\n"
    "Please provide your prediction by responding with ONLY 'upper half' or 'lower half'. Remember, your answer "
    "should be based on identifying the mistake that directly contributes to the failure in resolving the "
    "user's query. If no single clear error is evident, consider the step you believe is most responsible for "
    "the failure, allowing for subjective judgment, and base your answer on that."
)


def binary_search(run: RunText, start: int, end: int) -> str:
    """The prompt for the segment ``start..end`` (0-based, inclusive)."""
    mid = start + (end - start) // 2
    return BINARY_SEARCH.format(problem=run.problem, reference=_reference(run),
                                range=f"from step #{start + 1} to step #{end + 1}",
                                history="\n".join(run.lines[start:end + 1]),
                                upper=f"from step #{start + 1} to step #{mid + 1}",
                                lower=f"from step #{mid + 2} to step #{end + 1}")


# --------------------------------------------------------------------------- structured (ours)

STRUCTURED = (
    "You are analysing the history of a multi-agent system that failed to solve a problem.\n"
    "The problem is: {problem}\n"
    "{reference}"
    "The agents are: {agents}.\n"
    "Here is the history, one step a line, numbered #1, #2, ...:{part}\n\n{history}\n\n"
    "Find the decisive error: the earliest step whose mistake, had it been fixed, would have changed the outcome "
    "(not the step where the failure became visible). Answer with one JSON object and nothing else:\n"
    '{{"agent": "<the responsible agent, one of the agents above>", "step": <N of the decisive step{null}>, '
    '"reason": "<why this step is the decisive error>", "suggested_fix": "<what the agent should have done>", '
    '"confidence": <0 to 1, how sure you are of the step>, '
    '"plausible_steps": [<up to {others} other step numbers that could be the decisive one, most plausible '
    'first>]}}'
)

CHUNK_NOTE = (" this is part {part} of {parts} of a run too long to show at once (steps #{first} to #{last} of "
              "#{total}; parts overlap by {overlap} steps)")


def structured(run: RunText, k: int, first: int = 0, last: Optional[int] = None, part: int = 1, parts: int = 1,
               overlap: int = 0) -> str:
    """The prompt for steps ``first..last`` (0-based, inclusive; the whole run by default)."""
    last = len(run.lines) - 1 if last is None else last
    note = (CHUNK_NOTE.format(part=part, parts=parts, first=first + 1, last=last + 1, total=len(run.lines),
                              overlap=overlap) if parts > 1 else "")
    return STRUCTURED.format(problem=run.problem, reference=_reference(run), agents=", ".join(run.agents),
                             part=note, history="\n".join(run.lines[first:last + 1]),
                             null=", or null if no step of this part is the decisive error" if parts > 1 else "",
                             others=max(k - 1, 0))


# --------------------------------------------------------------------------- mast (ours)

MAST = (
    "You are analysing the history of a multi-agent system for failure modes, using the taxonomy below "
    "({taxonomy}).\n"
    "The problem the agents worked on is: {problem}\n"
    "{reference}"
    "The agents are: {agents}.\n\n"
    "The failure modes, by category (code, name: definition):\n{modes}\n\n"
    "Here is the history, one step a line, numbered #1, #2, ...:{part}\n\n{history}\n\n"
    "Decide which of these failure modes occur in this run, and on which steps. Answer with one JSON object and "
    "nothing else:\n"
    '{{{present}"steps": [{{"step": <N>, "mode": "<code>", "note": "<short evidence from step #N>"{severity}}}]}}\n'
    "Use only the codes listed above. {present_rule}In \"steps\", tag each step where a mode shows (a step may carry "
    "several modes, a mode several steps), each (step, mode) once.{severity_rule} Empty lists mean no failure mode "
    "{scope}."
)
MAST_PRESENT = ('"present": [{{"mode": "<code>", "note": "<short evidence>"{severity}}}], ')
MAST_PRESENT_RULE = ("In \"present\", list every mode that occurs in {scope}, each once, including modes no single "
                     "step shows (the run never verifies its result, a constraint is dropped along the way). ")
MAST_SEVERITY = ', "severity": "<one of {severities}, or null>"'
MAST_SEVERITY_RULE = " A severity is one of {severities} (least to most severe), or null."


def mast_modes(taxonomy) -> str:
    """The taxonomy as the prompt gives it: per category, ``- code name: definition (Example: ...)``."""
    lines = []
    for category, modes in taxonomy.categories().items():
        lines.append(f"{category}:")
        lines += [f"- {mode.code} {mode.name}: {mode.definition}" + (f" (Example: {mode.example})" if mode.example
                                                                      else "") for mode in modes]
    return "\n".join(lines)


def mast(run: RunText, taxonomy, whole_run: bool, severities: Optional[List[str]], first: int = 0,
         last: Optional[int] = None, part: int = 1, parts: int = 1, overlap: int = 0) -> str:
    """The prompt for steps ``first..last`` (0-based, inclusive; the whole run by default).
    ``whole_run``: ask for the run's modes besides the step tags; ``severities``: ask for one (None: not)."""
    last = len(run.lines) - 1 if last is None else last
    note = (CHUNK_NOTE.format(part=part, parts=parts, first=first + 1, last=last + 1, total=len(run.lines),
                              overlap=overlap) if parts > 1 else "")
    severity = MAST_SEVERITY.format(severities=", ".join(severities)) if severities else ""
    scope = "in this part of the run" if parts > 1 else "in this run"
    return MAST.format(taxonomy=f"{taxonomy.id}, {taxonomy.source}", problem=run.problem, reference=_reference(run),
                       agents=", ".join(run.agents), modes=mast_modes(taxonomy), part=note,
                       history="\n".join(run.lines[first:last + 1]),
                       present=MAST_PRESENT.format(severity=severity) if whole_run else "",
                       present_rule=MAST_PRESENT_RULE.format(scope=scope[3:]) if whole_run else "",
                       severity=severity,
                       severity_rule=MAST_SEVERITY_RULE.format(severities=", ".join(severities)) if severities else "",
                       scope=scope)


def version(name: str, template: str) -> str:
    """``all-at-once/1a2b3c4d``: the method and a hash of its prompt text."""
    return f"{name}/{hashlib.sha1(template.encode('utf-8')).hexdigest()[:8]}"


VERSIONS = {
    "all-at-once": version("all-at-once", ALL_AT_ONCE),
    "step-by-step": version("step-by-step", STEP_BY_STEP),
    "binary-search": version("binary-search", BINARY_SEARCH),
    "structured": version("structured", STRUCTURED + CHUNK_NOTE),
    "mast": version("mast", MAST + MAST_PRESENT + MAST_PRESENT_RULE + MAST_SEVERITY + MAST_SEVERITY_RULE + CHUNK_NOTE),
}
"""A method's prompt version. ``mast`` adds the taxonomy's definitions to it (:func:`prompt_version`)."""


def prompt_version(method: str, taxonomy=None) -> str:
    """What a judgment records as its prompt: for ``mast``, the template and the definitions given (a
    reworded definition keeps the taxonomy's id but is another prompt)."""
    if method == "mast" and taxonomy is not None:
        return version("mast", VERSIONS["mast"] + mast_modes(taxonomy))
    return VERSIONS[method]
