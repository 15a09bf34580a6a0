"""``multiagent.tool_call_review``: a verdict on every tool call (right tool, right arguments, right order).

After BFCL v4 and MCPMark. The calls come from the derivation (``tool_calls``: OpenAI
``tool_calls``, a flat ``tool_call``, Anthropic ``tool_use`` blocks, ReAct ``action``). A stored
entry names its call by identity, never by position alone: the call ``id`` when the call has one,
else ``step`` + ``position`` (the call's place among its step's calls) + ``tool``. Entries in the
seed's shape (no ``id``, no ``position``) name their call by ``index`` + ``step`` + ``tool``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from pydantic import BaseModel, ConfigDict, Field, RootModel, StrictBool, StrictStr

from ...trace import Derivation
from .._base import (FreeText, Labels, NonNegativeJsonInt, Problem, Scheme, SchemeConfig, StepIndex, StepReference, is_stale,
                     json_ref, not_in_trace, problem, put_ref, step_problems)

DEFAULT_VERDICTS = ["correct", "wrong_tool", "wrong_args", "wrong_order"]

CallNumber = NonNegativeJsonInt
"""A 0-based count: a call's index, or its place in its step."""


class ToolCallReviewConfig(SchemeConfig):
    verdict_options: Labels = Field(
        default_factory=lambda: list(DEFAULT_VERDICTS), min_length=1,
        description="The verdicts, in display order; at least one, unique, none blank (spaces and quotes are fine).")
    multi_verdict: StrictBool = Field(
        False, description="Several verdicts per call (checkboxes) instead of one (radio buttons).")
    allow_notes: StrictBool = Field(True, description="A \"Notes\" field on every call.")


class ToolCallJudgement(BaseModel):
    """One judged call: what identifies it, and the annotator's verdict and notes."""

    model_config = ConfigDict(extra="forbid")

    index: CallNumber = Field(description="The call's index among all calls of the trace.")
    step: StepIndex = Field(description="0-based index of the call's step.")
    step_ref: Optional[StrictStr] = Field(None, description="The identity of the call's step when it was judged "
                                          "(docs/step-references.md); absent in values saved before.")
    position: Optional[CallNumber] = Field(None, description="The call's place among its step's calls (0-based).")
    id: Optional[StrictStr] = Field(None, description="The call's id, when it has one.")
    tool: Optional[StrictStr] = Field(description="The called tool (null when the call names none).")
    verdict: Optional[StrictStr] = Field(description="The verdict (the first of `verdicts` with multi_verdict).")
    verdicts: Optional[List[StrictStr]] = Field(None, description="Every verdict given, with multi_verdict only.")
    notes: FreeText = Field(description="Free text; may be empty.")
    from_judgment: Optional[StrictStr] = Field(
        None, description="The source of the judgment whose verdict the annotator accepted (docs/judgments.md); "
        "absent when the verdict is the annotator's own.")


class ToolCallReviewValue(RootModel[List[ToolCallJudgement]]):
    """The stored value: one entry per judged call, in trace order."""


class CallIndex:
    """The derivation's calls, findable by every identity a stored entry may use."""

    def __init__(self, tool_calls: List[dict]):
        self.calls = tool_calls
        self.positions = call_positions(tool_calls)
        self.by_id: Dict[str, List[dict]] = {}
        self.by_place: Dict[Tuple[int, int], dict] = {}
        for call, position in zip(tool_calls, self.positions):
            if call["id"] is not None:
                self.by_id.setdefault(call["id"], []).append(call)
            self.by_place[(call["step"], position)] = call

    def find(self, entry: ToolCallJudgement) -> Optional[dict]:
        """The call an entry names, or None when the trace has no such call."""
        if entry.id is not None:
            same_id = self.by_id.get(entry.id, [])
            if len(same_id) == 1:
                return same_id[0]
            return next((call for call in same_id if call["step"] == entry.step
                         and self.positions[call["index"]] == entry.position), None)
        if entry.position is not None:
            call = self.by_place.get((entry.step, entry.position))
            return call if call is not None and call["tool"] == entry.tool else None
        call = self.calls[entry.index] if entry.index < len(self.calls) else None
        return call if call is not None and call["step"] == entry.step and call["tool"] == entry.tool else None


def call_positions(tool_calls: List[dict]) -> List[int]:
    """Each call's place among its step's calls (a step's calls are consecutive in the list)."""
    positions: List[int] = []
    for k, call in enumerate(tool_calls):
        same_step = k > 0 and tool_calls[k - 1]["step"] == call["step"]
        positions.append(positions[-1] + 1 if same_step else 0)
    return positions


def identity_text(entry: ToolCallJudgement) -> str:
    """How a message names an entry's call: its id, or its place."""
    tool = f"tool {entry.tool}" if entry.tool is not None else "no tool"
    if entry.position is not None:
        return f"step {entry.step}, position {entry.position}, {tool}"
    return f"call {entry.index} at step {entry.step}, {tool}"


class ToolCallReview(Scheme):
    Config = ToolCallReviewConfig
    Value = ToolCallReviewValue
    summary = "Judge every tool call of a trace: right tool, right arguments, right order."
    proposal_order = 40
    proposed_for = "with_tool_calls"
    proposed_as = {"name": "tool_calls", "description": "Judge every tool call: right tool, right arguments, right order?"}
    proposed_because = ("{count} {runs} call tools", "no run calls a tool")

    @classmethod
    def trace_problems(cls, value: ToolCallReviewValue, derivation: Derivation,
                       config: ToolCallReviewConfig) -> List[Problem]:
        calls = CallIndex(derivation.tool_calls)
        claimed: Dict[int, int] = {}   # call index -> the entry that judged it first
        problems: List[Problem] = []
        for k, entry in enumerate(value.root):
            problems.extend(cls._identity_problems(k, entry, calls, claimed, derivation))
            problems.extend(cls._verdict_problems(k, entry, config))
        return problems

    @classmethod
    def references(cls, data: Any) -> List[StepReference]:
        def writer(entry: dict):
            def write(index: int, ref: Optional[str]) -> None:
                entry["step"] = index
                put_ref(entry, "step_ref", ref)
            return write

        return [StepReference(f"[{k}].step", entry["step"], json_ref(entry.get("step_ref")), writer(entry))
                for k, entry in enumerate(data)]

    @classmethod
    def settle(cls, data: Any, derivation: Derivation) -> Tuple[List[str], List[str]]:
        """Each entry's ``index`` and ``position`` are its call's in ``derivation`` again (the call
        found by its id, else by its step, position and tool; an entry whose step is still stale is
        left: that was reported already)."""
        calls = CallIndex(derivation.tool_calls)
        left = []
        for k, entry in enumerate(data):
            if is_stale(entry["step"], json_ref(entry.get("step_ref")), derivation):
                continue
            judged = ToolCallJudgement.model_validate(entry)
            call = calls.find(judged)
            if call is None:
                left.append(f"[{k}]: the call ({identity_text(judged)}) is not in this trace")
                continue
            entry["index"] = call["index"]
            if "position" in entry:
                entry["position"] = calls.positions[call["index"]]
        return [], left

    @staticmethod
    def _identity_problems(k: int, entry: ToolCallJudgement, calls: CallIndex, claimed: Dict[int, int],
                           derivation: Derivation) -> List[Problem]:
        stale = step_problems(f"[{k}].step", entry.step, entry.step_ref, derivation) if entry.step_ref else []
        if stale:
            return stale   # the step it was judged on changed: its other fields say nothing of this trace
        call = calls.find(entry)
        if call is None:
            if entry.id is not None:
                return [not_in_trace(f"[{k}].id", entry.id)]
            return [not_in_trace(f"[{k}]", identity_text(entry))]
        if call["index"] in claimed:
            return [problem("repeats_entry", field=f"[{k}]", first=f"[{claimed[call['index']]}]")]
        claimed[call["index"]] = k
        actual = {"index": call["index"], "step": call["step"], "position": calls.positions[call["index"]],
                  "id": call["id"], "tool": call["tool"]}
        present = entry.model_fields_set
        return [problem("not_as_in_trace", field=f"[{k}].{field}", expected=expected, got=getattr(entry, field))
                for field, expected in actual.items()
                if field in present and getattr(entry, field) != expected]

    @staticmethod
    def _verdict_problems(k: int, entry: ToolCallJudgement, config: ToolCallReviewConfig) -> List[Problem]:
        options = config.verdict_options
        problems = []
        if entry.verdict is not None and entry.verdict not in options:
            problems.append(problem("not_configured", field=f"[{k}].verdict", value=entry.verdict, key="verdict_options"))
        if entry.verdicts is not None:
            if not config.multi_verdict:
                problems.append(problem("off_in_config", field=f"[{k}].verdicts", key="multi_verdict"))
            for j, verdict in enumerate(entry.verdicts):
                if verdict not in options:
                    problems.append(problem("not_configured", field=f"[{k}].verdicts[{j}]", value=verdict,
                                            key="verdict_options"))
                elif verdict in entry.verdicts[:j]:
                    problems.append(problem("repeats_entry", field=f"[{k}].verdicts[{j}]",
                                            first=f"[{k}].verdicts[{entry.verdicts.index(verdict)}]"))
            first = entry.verdicts[0] if entry.verdicts else None
            if entry.verdict != first:
                problems.append(problem("not_first_of", field=f"[{k}].verdict", expected=first, got=entry.verdict,
                                        list_field="verdicts"))
        if entry.notes and not config.allow_notes:
            problems.append(problem("notes_off", field=f"[{k}].notes", key="allow_notes"))
        return problems
