"""``multiagent.mast``: tag failure modes (MAST by default) on the steps of a run and on the run.

Two levels, one value. A *step tag* puts a mode on a step (``#N``), with an optional note and
severity; a *whole-run mark* says a mode is present in the run without locating it (MAST's own
labels are per trace: a yes or no per mode for the whole run). The run's modes are the union of
both: a mode tagged on any step is present in the run. The value records the taxonomy it was
made under (``taxonomy``: :attr:`..taxonomy.Taxonomy.id`), so a value made under another
taxonomy (or another version of it) is reported, never read as this one.

Stored::

    {"taxonomy": "mast@f1e2d3c4",
     "steps": [{"step": 3, "step_ref": null, "mode": "1.3", "note": "", "severity": "major"}],
     "run":   [{"mode": "2.4", "note": "never says the budget"}],
     "none_found": false}

``step_ref`` is the step's identity beside its index (the source's own id, else a fingerprint of
agent and text; docs/step-references.md), ``from_judgment`` the source of a judgment the
annotator accepted for that tag, ``none_found`` the annotator's "no failure mode in this run".
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationInfo, field_validator

from ...taxonomy import DEFAULT_PRESET, Taxonomy, TaxonomyError, resolve
from ...trace import Derivation
from .._base import Labels, Problem, Scheme, SchemeConfig, StepIndex, StepReference, json_ref, problem, put_ref, step_problems
from .._base.proposal import Choice, Survey, when

GOLD_KEYS = {"mast", "failure_modes", "failure_mode_votes", "mast_annotation"}
"""Gold keys holding a run's MAST labels (``adapter.gold_modes`` reads them)."""

DEFAULT_SEVERITIES = ["minor", "major", "critical"]
"""Potato's ``trajectory_eval`` severities."""


class MastConfig(SchemeConfig):
    """The shared trace keys, the taxonomy, and what a tag may carry besides its mode."""

    taxonomy: Union[StrictStr, Dict[StrictStr, Any]] = Field(
        DEFAULT_PRESET, description="A taxonomy Potato ships, by name (`potato.server_utils.failure_taxonomy`: "
        "`mast`, Cemri et al. 2025, 14 modes in 3 categories, with Potato's codes, names and definitions), or a "
        "small taxonomy written here in the shape of a `modes_file`. Ignored when `modes_file` is set.")
    modes_file: Optional[StrictStr] = Field(None, min_length=1, description="A YAML or JSON file of another "
                                            "taxonomy (TRAIL's, AgentRx's, your own): `modes: [{category, code, name, "
                                            "definition, example?}]`, optionally `name`, `version`, `source` "
                                            "(docs/types/mast.md). Relative to the task's folder (`task_dir`). Not "
                                            "`taxonomy_file`: Potato reads that key on every scheme, in its own "
                                            "codebook format, when it loads the config.")
    allow_severity: StrictBool = Field(True, description="A severity per tag and per whole-run mark (optional "
                                       "for the annotator).")
    severities: Labels = Field(default_factory=lambda: list(DEFAULT_SEVERITIES), min_length=1,
                               description="The severities offered, least to most severe (Potato's `trajectory_eval` "
                               "levels by default).")
    allow_note: StrictBool = Field(True, description="A free-text note per tag and per whole-run mark.")
    whole_run: StrictBool = Field(True, description="Modes can be marked for the whole run without a step "
                                  "(\"present, not located\"), as MAST's own per-trace labels are.")

    @field_validator("modes_file")
    @classmethod
    def _taxonomy_loads(cls, file: Optional[str], info: ValidationInfo) -> Optional[str]:
        try:
            resolve(info.data.get("taxonomy", DEFAULT_PRESET), file)
        except TaxonomyError as error:
            raise ValueError(str(error)) from None
        return file

    @field_validator("taxonomy")
    @classmethod
    def _taxonomy_exists(cls, taxonomy: Any) -> Any:
        try:
            resolve(taxonomy, None)
        except TaxonomyError as error:
            raise ValueError(str(error)) from None
        return taxonomy

    def taxonomy_model(self) -> Taxonomy:
        """The taxonomy this scheme tags with (read once per file version)."""
        return resolve(self.taxonomy, self.modes_file)


Mode = Field(min_length=1, description="The mode's code in the taxonomy (`1.3`).")


class MastStepTag(BaseModel):
    """One mode on one step."""

    model_config = ConfigDict(extra="forbid")

    step: StepIndex = Field(description="0-based step index (`#N` = index + 1).")
    step_ref: Optional[StrictStr] = Field(None, description="The step's identity beside its index "
                                          "(docs/step-references.md): a tag never moves to another step when the "
                                          "trace changes; it is reported stale.")
    mode: StrictStr = Mode
    note: StrictStr = Field("", description="Free-text evidence (when allow_note is on).")
    severity: Optional[StrictStr] = Field(None, description="One of the configured severities, or null.")
    from_judgment: Optional[StrictStr] = Field(None, description="The source of the judgment whose tag the "
                                               "annotator accepted (docs/judgments.md).")

    def key(self) -> Tuple[int, str]:
        return (self.step, self.mode)


class MastRunTag(BaseModel):
    """One mode marked for the whole run, not located on a step."""

    model_config = ConfigDict(extra="forbid")

    mode: StrictStr = Mode
    note: StrictStr = Field("", description="Free-text evidence (when allow_note is on).")
    severity: Optional[StrictStr] = Field(None, description="One of the configured severities, or null.")
    from_judgment: Optional[StrictStr] = Field(None, description="The source of the judgment the annotator accepted.")


class MastValue(BaseModel):
    """The stored value: the taxonomy, the step tags, the whole-run marks."""

    model_config = ConfigDict(extra="forbid")

    taxonomy: StrictStr = Field(min_length=1, description="The id of the taxonomy the tags were made under "
                                "(`name@version`).")
    steps: List[MastStepTag] = Field(default_factory=list, description="Modes tagged on steps.")
    run: List[MastRunTag] = Field(default_factory=list, description="Modes marked for the whole run, not located.")
    none_found: StrictBool = Field(False, description="The annotator found no failure mode in this run.")

    def run_modes(self) -> Dict[str, Dict[str, object]]:
        """The run's modes (step tags and whole-run marks together): code -> {steps, whole_run}."""
        modes: Dict[str, Dict[str, object]] = {}
        for tag in self.steps:
            modes.setdefault(tag.mode, {"steps": [], "whole_run": None})["steps"].append(tag.step)
        for tag in self.run:
            modes.setdefault(tag.mode, {"steps": [], "whole_run": None})["whole_run"] = tag
        for entry in modes.values():
            entry["steps"] = sorted(set(entry["steps"]))
        return modes


class Mast(Scheme):
    Config = MastConfig
    Value = MastValue
    summary = "Tag failure modes (MAST by default, with definitions) on steps and on the whole run."
    proposal_order = 60

    @classmethod
    def agreed(cls, values: List[Any], config: MastConfig) -> dict:
        """The tags every annotator gave reach gold without being answered again (:func:`agreed_value`)."""
        return agreed_value(values, list(config.severities))

    @classmethod
    def over_agreed(cls, agreed: dict, adjudicated: dict) -> dict:
        """The adjudicator can add to the agreed tags, never drop them (:func:`union_value`)."""
        return union_value(agreed, adjudicated)

    @classmethod
    def propose(cls, found: Survey) -> Choice:
        return when(found.multi_agent, "mast", {
            "annotation_type": "multiagent.mast", "name": "mast", "description": "MAST failure modes"},
            "MAST's 14 failure modes of multi-agent systems (Potato's codes, names and definitions), tagged on "
            "each step of the trace view and for the whole run, with a note and a severity per tag"
            + (" (the source's own MAST labels are in gold: agreement --gold compares each annotator's run "
               "modes with them)" if GOLD_KEYS & set(found.gold_keys) else ""),
            "MAST describes failures between agents, and no run has two")


    @classmethod
    def widget_config(cls, config: MastConfig) -> dict:
        return {**super().widget_config(config), "modes": _browser_taxonomy(config.taxonomy_model())}

    @classmethod
    def trace_problems(cls, value: MastValue, derivation: Derivation, config: MastConfig) -> List[Problem]:
        taxonomy = config.taxonomy_model()
        if value.taxonomy != taxonomy.id:
            return [problem("other_taxonomy", got=value.taxonomy, want=taxonomy.id)]
        codes = set(taxonomy.codes)
        problems: List[Problem] = []
        first_tag: Dict[Tuple[int, str], int] = {}
        for position, tag in enumerate(value.steps):
            where = f"steps[{position}]"
            problems += step_problems(f"{where}.step", tag.step, tag.step_ref, derivation)
            if tag.mode not in codes:
                problems.append(problem("unknown_mode", field=f"{where}.mode", value=tag.mode, taxonomy=taxonomy.id))
            if tag.key() in first_tag:
                problems.append(problem("repeats_entry", field=where, first=f"steps[{first_tag[tag.key()]}]"))
            first_tag.setdefault(tag.key(), position)
            problems.extend(_detail_problems(where, tag, config))
        if value.run and not config.whole_run:
            problems.append(problem("run_off"))
        first_mode: Dict[str, int] = {}
        for position, tag in enumerate(value.run):
            where = f"run[{position}]"
            if tag.mode not in codes:
                problems.append(problem("unknown_mode", field=f"{where}.mode", value=tag.mode, taxonomy=taxonomy.id))
            if tag.mode in first_mode:
                problems.append(problem("repeats_entry", field=where, first=f"run[{first_mode[tag.mode]}]"))
            first_mode.setdefault(tag.mode, position)
            problems.extend(_detail_problems(where, tag, config))
        if value.none_found and (value.steps or value.run):
            problems.append(problem("none_with_tags"))
        return problems

    @classmethod
    def references(cls, data: Any) -> List[StepReference]:
        """Each step tag's step, with the identity it was saved with."""
        found = []
        steps = data.get("steps") if isinstance(data, dict) else None
        for position, tag in enumerate(steps if isinstance(steps, list) else []):
            if not isinstance(tag, dict) or not isinstance(tag.get("step"), int):
                continue

            def write(index: int, ref: Optional[str], tag: dict = tag) -> None:
                tag["step"] = index
                put_ref(tag, "step_ref", ref)

            found.append(StepReference(f"steps[{position}].step", tag["step"], json_ref(tag.get("step_ref")), write))
        return found


def _detail_problems(where: str, tag, config: MastConfig) -> List[Problem]:
    problems = []
    if tag.severity is not None and not config.allow_severity:
        problems.append(problem("severity_off", field=f"{where}.severity"))
    elif tag.severity is not None and tag.severity not in config.severities:
        problems.append(problem("not_configured", field=f"{where}.severity", value=tag.severity, key="severities"))
    if tag.note and not config.allow_note:
        problems.append(problem("notes_off", field=f"{where}.note", key="allow_note"))
    return problems


@lru_cache(maxsize=16)
def _browser_taxonomy(taxonomy: Taxonomy) -> dict:
    return taxonomy.to_browser()


# --------------------------------------------------------------------------- values in gold


def agreed_value(values: List[dict], severities: List[str]) -> dict:
    """What every one of ``values`` (same taxonomy) says: the step tags all of them made (same step,
    same mode) and the run's modes all of them found present, a mode located by no agreed step tag
    kept as a whole-run mark. Notes are joined; a severity is the most severe any of them gave (in
    ``severities`` order). Adjudication sends this to gold without asking again."""
    parsed = [MastValue.model_validate(value) for value in values]
    keys = set.intersection(*({tag.key() for tag in value.steps} for value in parsed))
    present = set.intersection(*(set(value.run_modes()) for value in parsed))
    located = {mode for _, mode in keys}
    steps = [_joined([tag for value in parsed for tag in value.steps if tag.key() == key], severities)
             for key in sorted(keys)]
    run = []
    for mode in present - located:
        marks = [tag for value in parsed for tag in value.run if tag.mode == mode]
        run.append({"mode": mode, **_details(marks, severities)})
    run.sort(key=lambda mark: mark["mode"])
    agreed = {"taxonomy": parsed[0].taxonomy, "steps": steps, "run": run}
    if not steps and not run and all(value.none_found for value in parsed):
        agreed["none_found"] = True
    return agreed


def _joined(tags: list, severities: List[str]) -> dict:
    first = tags[0]
    joined = {"step": first.step, "mode": first.mode, **_details(tags, severities)}
    refs = {tag.step_ref for tag in tags if tag.step_ref}
    if len(refs) == 1:
        joined["step_ref"] = refs.pop()
    return joined


def _details(tags: list, severities: List[str]) -> dict:
    notes = list(dict.fromkeys(tag.note for tag in tags if tag.note))
    given = [tag.severity for tag in tags if tag.severity in severities]
    return {"note": " | ".join(notes), "severity": max(given, key=severities.index) if given else None}


def union_value(base: dict, added: dict) -> dict:
    """``base`` (agreed or unanimous gold) with ``added`` (an adjudicator's answer) over it: every tag of
    either; a tag in both takes the adjudicator's words, and the base's note when the adjudicator wrote
    none. The adjudicator can add to what annotators agreed on, never silently drop it."""
    first, second = MastValue.model_validate(base), MastValue.model_validate(added)
    if first.taxonomy != second.taxonomy:
        raise ValueError(f"taxonomy: the agreed tags are {first.taxonomy}, the adjudicator's {second.taxonomy}")

    def merged(old, new):
        data = new.model_dump(exclude_none=True)
        if not new.note and old.note:
            data["note"] = old.note
        return data

    steps = {tag.key(): tag.model_dump(exclude_none=True) for tag in first.steps}
    old_steps = {tag.key(): tag for tag in first.steps}
    for tag in second.steps:
        steps[tag.key()] = merged(old_steps[tag.key()], tag) if tag.key() in old_steps else tag.model_dump(exclude_none=True)
    run = {tag.mode: tag.model_dump(exclude_none=True) for tag in first.run}
    old_run = {tag.mode: tag for tag in first.run}
    for tag in second.run:
        run[tag.mode] = merged(old_run[tag.mode], tag) if tag.mode in old_run else tag.model_dump(exclude_none=True)
    union = {"taxonomy": first.taxonomy, "steps": [steps[key] for key in sorted(steps)],
             "run": [run[mode] for mode in sorted(run)]}
    if not steps and not run and (first.none_found or second.none_found):
        union["none_found"] = True
    return union
