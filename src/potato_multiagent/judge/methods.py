"""The attribution methods: each asks the model about one run and answers in the stored shape of
``multiagent.failure_attribution`` (``decisive_step`` 0-based; the model speaks of ``#N``).

Every answer is parsed and checked against the run (an agent it has, a step it has). An answer
that cannot be used is asked again once, with what was wrong; a second bad answer ends the run as
*unparseable*, with every raw answer kept. A run longer than the model's context is handled as the
method says (:data:`CONTEXT`), never sent to fail at the server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from ..trace import Derivation, StepRefs
from . import prompts
from .model import Model, Reply, estimate_tokens

CONTEXT = {
    "all-at-once": "refused: its one call holds the whole run",
    "step-by-step": "a sliding window: each call holds the task and the latest steps that fit, up to the step asked",
    "binary-search": "refused: its first call holds the whole run",
    "structured": "chunked with overlap: each part holds the steps that fit, parts overlap by --overlap steps; "
                  "the earliest part that names a step gives the answer",
    "mast": "chunked with overlap: each part holds the steps that fit, parts overlap by --overlap steps; the "
            "run's modes and step tags are the union of the parts'",
}
CALLS = {
    "all-at-once": "1 per run",
    "step-by-step": "1 per step up to the first step judged an error (at most the run's length)",
    "binary-search": "ceil(log2(steps)) per run",
    "structured": "1 per run (1 per part when chunked)",
    "mast": "1 per run (1 per part when chunked)",
}


class Invalid(Exception):
    """An answer that cannot be used; the message says why (and is sent back with the retry)."""


class Unparseable(Exception):
    """Two unusable answers in a row."""


class Refused(Exception):
    """The run cannot be judged by this method (too long for the context, no steps)."""


@dataclass
class Ledger:
    """What a run cost, and every raw answer."""

    calls: int = 0
    input_tokens: Optional[int] = 0
    output_tokens: Optional[int] = 0
    seconds: float = 0.0
    answers: List[str] = field(default_factory=list)

    def add(self, reply: Reply) -> None:
        self.calls += 1
        self.seconds += reply.seconds
        self.answers.append(reply.text)
        self.input_tokens = None if self.input_tokens is None or reply.input_tokens is None \
            else self.input_tokens + reply.input_tokens
        self.output_tokens = None if self.output_tokens is None or reply.output_tokens is None \
            else self.output_tokens + reply.output_tokens


@dataclass
class Run:
    """One run as the methods see it."""

    id: str
    derivation: Derivation
    text: prompts.RunText
    config: Any = None
    """The judged scheme's parsed config (``mast`` reads its taxonomy, notes, severities and whole-run marks)."""


@dataclass
class Settings:
    model: Model
    k: int = 5
    """Ranked steps asked of ``structured`` (the decisive one and up to k-1 others)."""
    context_tokens: Optional[int] = 128000
    overlap: int = 2

    @property
    def budget(self) -> Optional[int]:
        """Prompt tokens that fit beside the answer; None: no check."""
        if not self.context_tokens:
            return None
        return self.context_tokens - self.model.max_tokens


@dataclass
class Answer:
    value: Dict[str, Any]
    details: Dict[str, Any] = field(default_factory=dict)
    """Recorded beside the judgment: confidence, suggested fix, how the context was handled."""


def ask(settings: Settings, ledger: Ledger, prompt: str, parse: Callable[[str], Any], output_format=None) -> Any:
    """The parsed answer; one retry, told what was wrong, before :class:`Unparseable`."""
    reply = settings.model.ask(prompt, output_format)
    ledger.add(reply)
    try:
        return parse(reply.text)
    except Invalid as first:
        again = (f"{prompt}\n\nYour previous answer could not be used ({first}). Answer again, exactly in the "
                 f"format asked.")
        reply = settings.model.ask(again, output_format)
        ledger.add(reply)
        try:
            return parse(reply.text)
        except Invalid as second:
            raise Unparseable(str(second)) from None


def _fits(settings: Settings, prompt: str) -> bool:
    return settings.budget is None or estimate_tokens(prompt) <= settings.budget


def _too_long(run: Run, settings: Settings, prompt: str, what: str = "the run") -> Refused:
    return Refused(f"{what} needs about {estimate_tokens(prompt)} tokens, more than the {settings.budget} the "
                   f"model's context leaves beside its answer (--context-tokens {settings.context_tokens}, "
                   f"max_tokens {settings.model.max_tokens})")


# --------------------------------------------------------------------------- reading answers


def resolve_agent(said: str, agents: List[str]) -> str:
    """The run's agent a model's words name: exact, then without markdown, quotes or a qualifier
    (``Orchestrator (thought)``), then ignoring case."""
    text = said.strip().strip("*_`'\"").strip().rstrip(".").strip()
    candidates = [text, re.sub(r"\s*\(.*\)\s*$", "", text).strip(), re.split(r"\s*(?:->|\u2192)\s*", text)[0]]
    for candidate in candidates:
        if candidate in agents:
            return candidate
    lowered = {agent.lower(): agent for agent in agents}
    for candidate in candidates:
        if candidate.lower() in lowered:
            return lowered[candidate.lower()]
    raise Invalid(f"{said.strip()!r} is not an agent of this run (agents: {', '.join(agents) or 'none'})")


def step_index(number: Any, run: Run) -> int:
    """``#N`` as the model said it -> the 0-based index, checked against the run."""
    count = len(run.derivation.steps)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        raise Invalid(f"step {number!r} is not a step of this run (#1 to #{count})")
    return number - 1


def _value(agent: Optional[str], step: Optional[int], reason: str, plausible: Optional[List[int]] = None) -> dict:
    value: Dict[str, Any] = {"responsible_agent": agent, "decisive_step": step, "reason": reason}
    if plausible:
        value["plausible_steps"] = [{"step": index} for index in plausible]
    return value


# --------------------------------------------------------------------------- all at once


def all_at_once(run: Run, settings: Settings, ledger: Ledger) -> Answer:
    prompt = prompts.all_at_once(run.text)
    if not _fits(settings, prompt):
        raise _too_long(run, settings, prompt)

    def parse(text: str) -> Answer:
        agent = re.search(r"Agent Name:\s*(.+)", text, re.IGNORECASE)
        step = re.search(r"Step Number:\s*\**\s*#?(\d+)", text, re.IGNORECASE)
        if not agent or not step:
            raise Invalid("expected 'Agent Name: ...' and 'Step Number: N'")
        reason = re.search(r"Reason for Mistake:\s*(.*)", text, re.IGNORECASE | re.DOTALL)
        return Answer(_value(resolve_agent(agent.group(1), run.text.agents), step_index(int(step.group(1)), run),
                             reason.group(1).strip() if reason else ""))

    return ask(settings, ledger, prompt, parse)


# --------------------------------------------------------------------------- step by step

_YES_NO = re.compile(r"^\W*(?:1\s*[.):]\s*)?\**\s*(yes|no)\b", re.IGNORECASE)


def step_by_step(run: Run, settings: Settings, ledger: Ledger) -> Answer:
    steps = run.derivation.steps
    windowed = 0

    def parse(text: str) -> tuple:
        found = _YES_NO.match(text.strip())
        if not found:
            raise Invalid("expected '1. Yes' or '1. No' first")
        reason = text.split("Reason:", 1)[-1].strip() if "Reason:" in text else ""
        return found.group(1).lower() == "yes", reason

    for step in steps:
        words = prompts.agent_words(step)
        first = _window_start(run, settings, step.index, words)
        windowed += first > 0
        erred, reason = ask(settings, ledger, prompts.step_by_step(run.text, step.index, words, first), parse)
        if erred:
            details = {"context": f"window: {windowed} call(s) left early steps out"} if windowed else {}
            return Answer(_value(step.agent, step.index, reason), details)
    return Answer(_value(None, None, "step-by-step judged no step an error"),
                  {"context": f"window: {windowed} call(s) left early steps out"} if windowed else {})


def _window_start(run: Run, settings: Settings, index: int, words: str) -> int:
    """The first step shown when asking about ``index``: 0 when the history fits, else the latest
    steps that fit; :class:`Refused` when the step alone does not fit."""
    whole = prompts.step_by_step(run.text, index, words, 0)
    if _fits(settings, whole):
        return 0
    alone = prompts.step_by_step(run.text, index, words, index)
    if not _fits(settings, alone):
        raise _too_long(run, settings, alone, f"step #{index + 1} alone")
    room = settings.budget - estimate_tokens(alone)
    first = index
    while first > 0 and room - estimate_tokens(run.text.lines[first - 1] + "\n") >= 0:
        room -= estimate_tokens(run.text.lines[first - 1] + "\n")
        first -= 1
    return first


# --------------------------------------------------------------------------- binary search


def binary_search(run: Run, settings: Settings, ledger: Ledger) -> Answer:
    steps = run.derivation.steps
    start, end = 0, len(steps) - 1
    first = prompts.binary_search(run.text, start, end)
    if not _fits(settings, first):
        raise _too_long(run, settings, first)

    def parse(text: str) -> str:
        lowered = text.lower()
        if "upper half" in lowered:
            return "upper"
        if "lower half" in lowered:
            return "lower"
        raise Invalid("expected 'upper half' or 'lower half'")

    while start < end:
        mid = start + (end - start) // 2
        if ask(settings, ledger, prompts.binary_search(run.text, start, end), parse) == "upper":
            end = mid
        else:
            start = mid + 1
    step = steps[start]
    return Answer(_value(step.agent, step.index, f"binary search narrowed the run to step #{start + 1}"))


# --------------------------------------------------------------------------- structured (JSON)


class StructuredAnswer(BaseModel):
    """What ``structured`` asks for; ``step`` and the plausible steps are ``#N`` numbers."""

    model_config = ConfigDict(extra="ignore")

    agent: Optional[str] = Field(description="The responsible agent, one of the run's agents.")
    step: Optional[int] = Field(description="#N of the decisive step.")
    reason: str = Field("", description="Why this step is the decisive error.")
    suggested_fix: str = Field("", description="What the agent should have done.")
    confidence: float = Field(ge=0, le=1, description="How sure the model is of the step, 0 to 1.")
    plausible_steps: List[int] = Field(default_factory=list, description="Other #N that could be the decisive "
                                       "step, most plausible first.")


def structured(run: Run, settings: Settings, ledger: Ledger) -> Answer:
    count = len(run.derivation.steps)
    whole = prompts.structured(run.text, settings.k)
    parts = [(0, count - 1)] if _fits(settings, whole) else _parts(
        run, settings, lambda first, last: prompts.structured(run.text, settings.k, first, last, 2, 2,
                                                              settings.overlap))
    answers = []
    for number, (first, last) in enumerate(parts, start=1):
        prompt = prompts.structured(run.text, settings.k, first, last, number, len(parts), settings.overlap)
        answers.append(ask(settings, ledger, prompt, lambda text: _structured(text, run, len(parts) > 1),
                           StructuredAnswer))
    chosen = next((answer for answer in answers if answer["step"] is not None), None)
    details: Dict[str, Any] = {}
    if len(parts) > 1:
        details["context"] = f"chunked: {len(parts)} parts, {settings.overlap} steps overlap"
    if chosen is None:
        return Answer(_value(None, None, "no part of the run named a decisive step"), details)
    ranked = list(chosen["plausible"])
    for answer in answers[answers.index(chosen) + 1:]:
        ranked += ([answer["step"]] if answer["step"] is not None else []) + answer["plausible"]
    others = [step for step in dict.fromkeys(ranked) if step != chosen["step"]][:max(settings.k - 1, 0)]
    details.update(confidence=chosen["confidence"], suggested_fix=chosen["suggested_fix"])
    return Answer(_value(chosen["agent"], chosen["step"], chosen["reason"], others), details)


def _json_object(text: str) -> dict:
    """The one JSON object of an answer (in a code fence or prose, as Potato's parser finds it)."""
    from potato.ai.ai_endpoint import parse_llm_json

    try:
        parsed = parse_llm_json(text)
    except ValueError as error:
        raise Invalid(str(error)) from None
    if not isinstance(parsed, dict) or set(parsed) == {"response"}:
        raise Invalid("expected one JSON object")
    return parsed


def _validated(model: type, parsed: dict, context: Optional[dict] = None):
    """``parsed`` checked by a pydantic ``model``; its first error, with where, is what is wrong."""
    try:
        return model.model_validate(parsed, context=context)
    except ValidationError as error:
        first = error.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        raise Invalid(f"{'.'.join(str(part) for part in first['loc']) or 'answer'}: {message}") from None


def _structured(text: str, run: Run, chunked: bool) -> dict:
    answer = _validated(StructuredAnswer, _json_object(text))
    if answer.step is None and not chunked:
        raise Invalid("step: a step number is required")
    step = None if answer.step is None else step_index(answer.step, run)
    agent = None
    if step is not None:
        if answer.agent is None:
            raise Invalid("agent: the responsible agent is required with a step")
        agent = resolve_agent(answer.agent, run.text.agents)
    return {"agent": agent, "step": step, "reason": answer.reason, "suggested_fix": answer.suggested_fix,
            "confidence": answer.confidence, "plausible": [step_index(n, run) for n in answer.plausible_steps]}


def _parts(run: Run, settings: Settings, prompt: Callable[[int, int], str]) -> List[tuple]:
    """Windows of steps whose prompt fits, each starting ``overlap`` steps before the last ended.

    A window grows by the lines' estimated tokens (not by building its prompt again for every
    step, which is quadratic on a run of thousands of steps); the prompt it ends with is checked.
    ``prompt(first, last)`` is the method's prompt for a middle part (the chunk note says part 2 of 2).
    """
    count = len(run.derivation.steps)
    sizes = [estimate_tokens(line + "\n") for line in run.text.lines]

    parts, first = [], 0
    while first < count:
        alone = prompt(first, first)
        if not _fits(settings, alone):
            raise _too_long(run, settings, alone, f"step #{first + 1} alone")
        room = settings.budget - estimate_tokens(alone)
        last = first
        while last + 1 < count and room - sizes[last + 1] >= 0:
            room -= sizes[last + 1]
            last += 1
        while last > first and not _fits(settings, prompt(first, last)):
            last -= 1
        parts.append((first, last))
        if last + 1 >= count:
            break
        first = max(last + 1 - settings.overlap, first + 1)
    return parts


# --------------------------------------------------------------------------- mast (JSON, per trace and per step)


def _mode_code(label: str, info: ValidationInfo) -> str:
    """The taxonomy's code a model's mode names (``1.3``; also ``FM-1.3`` or ``1.3 Step repetition``, read as
    :meth:`..taxonomy.Taxonomy.find` reads a dataset's labels); any other is an invalid answer."""
    taxonomy = info.context["taxonomy"]
    mode = taxonomy.mode(label.strip()) or taxonomy.find(label)
    if mode is None:
        raise ValueError(f"'{label}' is not a mode of {taxonomy.id} (codes: {', '.join(taxonomy.codes)})")
    return mode.code


def _severity(severity: Optional[str], info: ValidationInfo) -> Optional[str]:
    """One of the scheme's severities, or None (also when the scheme takes none: a severity not asked for is
    dropped, not an error)."""
    allowed = info.context["severities"]
    if severity in (None, "", "null") or not allowed:
        return None
    if severity not in allowed:
        raise ValueError(f"'{severity}' is not one of {', '.join(allowed)}")
    return severity


class MastPresent(BaseModel):
    """A mode present in the run (or in the part shown)."""

    model_config = ConfigDict(extra="ignore")

    mode: str = Field(description="The mode's code, one of the taxonomy's.")
    note: str = Field("", description="Short evidence.")
    severity: Optional[str] = Field(None, description="One of the configured severities, or null.")

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, label: str, info: ValidationInfo) -> str:
        return _mode_code(label, info)

    @field_validator("severity")
    @classmethod
    def _known_severity(cls, severity: Optional[str], info: ValidationInfo) -> Optional[str]:
        return _severity(severity, info)


class MastStep(MastPresent):
    """A mode on one step; ``step`` is the ``#N`` the prompt numbers."""

    step: int = Field(description="#N of the step where the mode shows.")

    @field_validator("step")
    @classmethod
    def _shown(cls, number: int, info: ValidationInfo) -> int:
        first, last = info.context["steps"]
        if not first <= number <= last:
            raise ValueError(f"step {number} is not a step shown (#{first} to #{last})")
        return number


class MastAnswer(BaseModel):
    """What ``mast`` asks for, validated with the taxonomy, the steps shown and the severities as context."""

    model_config = ConfigDict(extra="ignore")

    present: List[MastPresent] = Field(default_factory=list, description="Every mode present in the run, once.")
    steps: List[MastStep] = Field(default_factory=list, description="Each (step, mode) where a mode shows, once.")


def _answer_format(taxonomy) -> type:
    """:class:`MastAnswer`'s JSON schema for the endpoint's structured output, its codes enumerated (a server
    that enforces the schema then never answers an unknown code; the answer is checked all the same)."""
    schema = MastAnswer.model_json_schema()
    for name in ("MastPresent", "MastStep"):
        schema["$defs"][name]["properties"]["mode"]["enum"] = list(taxonomy.codes)

    class Format:
        @staticmethod
        def model_json_schema() -> dict:
            return schema

    Format.__name__ = "MastAnswer"
    return Format


def mast(run: Run, settings: Settings, ledger: Ledger) -> Answer:
    """Which of the scheme's taxonomy's modes the run shows, and on which steps: a ``multiagent.mast`` value
    (step tags with their ``step_ref``; whole-run marks for present modes no step tag locates)."""
    config = run.config
    taxonomy = config.taxonomy_model()
    severities = list(config.severities) if config.allow_severity else None
    count = len(run.derivation.steps)

    def prompt(first: int, last: int, number: int = 2, parts: int = 2) -> str:
        return prompts.mast(run.text, taxonomy, config.whole_run, severities, first, last, number, parts,
                            settings.overlap)

    whole = prompts.mast(run.text, taxonomy, config.whole_run, severities)
    parts = [(0, count - 1)] if _fits(settings, whole) else _parts(run, settings, prompt)
    answer_format = _answer_format(taxonomy)
    answers = []
    for number, (first, last) in enumerate(parts, start=1):
        context = {"taxonomy": taxonomy, "steps": (first + 1, last + 1), "severities": severities or []}
        answers.append(ask(settings, ledger, prompt(first, last, number, len(parts)),
                           lambda text: _mast(text, context, config.whole_run), answer_format))
    details: Dict[str, Any] = {}
    if len(parts) > 1:
        details["context"] = f"chunked: {len(parts)} parts, {settings.overlap} steps overlap"
    return Answer(_mast_value(answers, taxonomy, config, StepRefs(run.derivation.steps)), details)


def _mast(text: str, context: dict, whole_run: bool) -> MastAnswer:
    parsed = _json_object(text)
    if not whole_run:
        parsed.pop("present", None)     # not asked for: the scheme takes no whole-run marks
    return _validated(MastAnswer, parsed, context)


def _mast_value(answers: List[MastAnswer], taxonomy, config, refs: StepRefs) -> dict:
    """The parts' answers as one value: every (step, mode) once (the first part's words), the run's modes the
    union of all, a present mode located by no step tag kept as a whole-run mark."""
    def words(said) -> dict:
        return {"note": said.note if config.allow_note else "", "severity": said.severity}

    steps: Dict[tuple, dict] = {}
    run: Dict[str, dict] = {}
    for answer in answers:
        for said in answer.steps:
            steps.setdefault((said.step - 1, said.mode), {"step": said.step - 1, "step_ref": refs.ref(said.step - 1),
                                                          "mode": said.mode, **words(said)})
        for said in answer.present:
            run.setdefault(said.mode, {"mode": said.mode, **words(said)})
    order = {code: position for position, code in enumerate(taxonomy.codes)}
    located = {mode for _, mode in steps}
    value: Dict[str, Any] = {
        "taxonomy": taxonomy.id,
        "steps": [steps[key] for key in sorted(steps, key=lambda key: (key[0], order[key[1]]))],
        "run": [run[mode] for mode in sorted(run, key=order.__getitem__) if mode not in located]}
    if not value["steps"] and not value["run"]:
        value["none_found"] = True
    return value


METHODS: Dict[str, Callable[[Run, Settings, Ledger], Answer]] = {
    "all-at-once": all_at_once,
    "step-by-step": step_by_step,
    "binary-search": binary_search,
    "structured": structured,
    "mast": mast,
}
