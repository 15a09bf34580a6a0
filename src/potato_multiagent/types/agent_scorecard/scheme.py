"""``multiagent.agent_scorecard``: score each agent and the team on dimensions; tick milestones.

The MultiAgentBench scorecard: every agent of the trace gets a score per ``agent_dimensions``, the
team a score per ``team_dimensions``, and the configured ``milestones`` are ticked when reached
(optionally with the step where that happened). The stored value is the seed's
``{"agents": {name: {dim: score}}, "team": {dim: score}, "milestones": {name: true}}`` plus two
optional keys that seed readers can ignore: ``not_applicable`` (cells marked "not applicable",
kept out of the seed's score maps so they stay purely numeric) and ``milestone_steps``.
"""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Optional, Tuple

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt,
                      StrictStr, ValidationInfo, field_validator)

from ...trace import Derivation, unique_names
from .._base import (Labels, Problem, Scheme, SchemeConfig, StepIndex, StepReference, above_bound, json_int, json_ref,
                     not_in_trace, problem, put_ref, step_problems, unique_list)
from .._base.proposal import Choice, Survey

MAX_SCALE = 10


class AgentScorecardConfig(SchemeConfig):
    """The dimensions, milestones and scale; the agents come from the trace (and ``agents``)."""

    agent_dimensions: Labels = Field(["role fidelity", "contribution", "coordination"], min_length=1,
                                     description="The columns scored for every agent; at least one, unique, none blank.")
    team_dimensions: Labels = Field(["coordination", "communication", "efficiency"], min_length=1,
                                    description="The dimensions scored once for the team; at least one, unique, none blank.")
    milestones: Labels = Field([], description="Checkpoints ticked when the run reached them; unique, none blank.")
    scale: StrictInt = Field(5, ge=2, le=MAX_SCALE, description="Scores run from 1 to `scale`.")
    scale_labels: Optional[Dict[int, StrictStr]] = Field(
        None, description="Words for the scores: a list of `scale` labels, or a map score -> label (`{1: poor, 5: excellent}` names only the ends).")
    allow_na: StrictBool = Field(True, description="Every cell offers \"not applicable\".")
    milestone_steps: StrictBool = Field(False, description="Each ticked milestone can record the step where it was reached.")

    @field_validator("scale_labels", mode="before")
    @classmethod
    def _labels_by_score(cls, labels: Any, info: ValidationInfo) -> Any:
        """A list names every score in order; a map may name only some (``{1: poor, 5: great}``)."""
        if isinstance(labels, list):
            scale = info.data.get("scale")
            if isinstance(scale, int) and len(labels) != scale:
                raise ValueError(f"a list needs one label per score: {scale} (the scale), got {len(labels)}")
            return {score: label for score, label in enumerate(labels, start=1)}
        if isinstance(labels, dict):
            return {_score_key(key): label for key, label in labels.items()}
        return labels

    @field_validator("scale_labels")
    @classmethod
    def _labels_fit_the_scale(cls, labels: Optional[Dict[int, str]],
                              info: ValidationInfo) -> Optional[Dict[int, str]]:
        scale = info.data.get("scale")
        if labels is None or scale is None:
            return labels
        outside = [score for score in labels if not 1 <= score <= scale]
        if outside:
            raise ValueError(f"score {outside[0]} is outside the scale 1..{scale}")
        unique_names(list(labels.values()))
        return labels

    def scale_points(self) -> List[Tuple[int, Optional[str]]]:
        """``[(score, label or None), ...]`` for every score of the scale."""
        labels = self.scale_labels or {}
        return [(score, labels.get(score)) for score in range(1, self.scale + 1)]


def _score_key(key: Any) -> Any:
    """A map key as a score: YAML gives ``1``, JSON gives ``"1"``; ``true`` or ``"one"`` is no score."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.isascii() and key.isdigit():
        return int(key)
    raise ValueError(f"keys are scores, got {key!r}")


Score = json_int(ge=1)
"""A score as stored (a JSON integer, ``4.0`` is ``4``). Its ceiling is the config's ``scale``,
checked against the config (no fixed maximum here: 99 on a 1-5 scale is "at most 5", not 10)."""

DimensionList = unique_list(StrictStr)


class NotApplicable(BaseModel):
    """Cells marked "not applicable": per agent the dimensions, and the team's dimensions."""

    model_config = ConfigDict(extra="forbid")

    agents: Dict[StrictStr, DimensionList] = Field(default_factory=dict,
                                                   description="Agent name -> its dimensions marked not applicable.")
    team: DimensionList = Field(default_factory=list, description="Team dimensions marked not applicable.")


class AgentScorecardValue(BaseModel):
    """The stored value. A cell is scored (in ``agents``/``team``), not applicable (in
    ``not_applicable``) or not scored yet (in neither)."""

    model_config = ConfigDict(extra="forbid")

    agents: Dict[StrictStr, Dict[StrictStr, Score]] = Field(description="Agent name -> dimension -> score.")
    team: Dict[StrictStr, Score] = Field(description="Team dimension -> score.")
    milestones: Dict[StrictStr, StrictBool] = Field(description="Milestone -> reached (the widget writes ticked ones).")
    not_applicable: NotApplicable = Field(default_factory=NotApplicable,
                                          description="Cells marked not applicable (absent: none).")
    milestone_steps: Dict[StrictStr, StepIndex] = Field(
        default_factory=dict, description="Milestone -> 0-based index of the step where it was reached.")
    milestone_step_refs: Dict[StrictStr, StrictStr] = Field(
        default_factory=dict, description="Milestone -> the identity of its step when it was set "
        "(docs/step-references.md); absent in values saved before identities were stored.")
    from_judgment: Dict[StrictStr, StrictStr] = Field(
        default_factory=dict, description="Which cells and milestones the annotator accepted from a judgment "
        "(docs/judgments.md): `agents/AGENT/DIMENSION`, `team/DIMENSION` or `milestones/MILESTONE` -> the "
        "judgment's source. Absent: none; agreement ignores it.")


class AgentScorecard(Scheme):
    Config = AgentScorecardConfig
    Value = AgentScorecardValue
    summary = "Score every agent and the team on dimensions, mark cells not applicable, tick milestones."
    proposal_order = 70

    @classmethod
    def propose(cls, found: Survey) -> Choice:
        return Choice("scorecard", None, "agent_scorecard needs dimensions and milestones only the task "
                                         "author knows: add it by hand (see: potato-multiagent docs agent_scorecard)")


    @classmethod
    def trace_problems(cls, value: AgentScorecardValue, derivation: Derivation,
                       config: AgentScorecardConfig) -> List[Problem]:
        agents = set(derivation.agents)
        return (_agent_score_problems(value, agents, config) + _team_score_problems(value, config)
                + _milestone_problems(value, derivation, config)
                + _not_applicable_problems(value, agents, config))

    @classmethod
    def references(cls, data: Any) -> List[StepReference]:
        steps = data.get("milestone_steps") or {}
        refs = data.get("milestone_step_refs") or {}

        def writer(name: str):
            def write(index: int, ref: Optional[str]) -> None:
                data["milestone_steps"][name] = index
                put_ref(data.setdefault("milestone_step_refs", {}), name, ref)
                if not data["milestone_step_refs"]:
                    del data["milestone_step_refs"]
            return write

        return [StepReference(f"milestone_steps.{name}", step, json_ref(refs.get(name)), writer(name))
                for name, step in steps.items()]


def _not_configured(path: str, label: str, key: str) -> Problem:
    return problem("not_configured", field=path, value=label, key=key)


def _scores_off_scale(path: str, scores: Dict[str, int], config: AgentScorecardConfig) -> List[Problem]:
    return [above_bound(f"{path}.{dim}", score, config.scale)
            for dim, score in scores.items() if score > config.scale]


def _dimension_problems(path: str, scores: Dict[str, int], dimensions: List[str], key: str,
                        config: AgentScorecardConfig) -> List[Problem]:
    unknown = [_not_configured(path, dim, key) for dim in scores if dim not in dimensions]
    known = {dim: score for dim, score in scores.items() if dim in dimensions}
    return unknown + _scores_off_scale(path, known, config)


def _agent_score_problems(value: AgentScorecardValue, agents: set, config: AgentScorecardConfig) -> List[Problem]:
    problems = []
    for name, scores in value.agents.items():
        if name not in agents:
            problems.append(not_in_trace("agents", name))
        problems += _dimension_problems(f"agents.{name}", scores, config.agent_dimensions, "agent_dimensions", config)
    return problems


def _team_score_problems(value: AgentScorecardValue, config: AgentScorecardConfig) -> List[Problem]:
    return _dimension_problems("team", value.team, config.team_dimensions, "team_dimensions", config)


def _milestone_problems(value: AgentScorecardValue, derivation: Derivation,
                        config: AgentScorecardConfig) -> List[Problem]:
    problems = [_not_configured("milestones", name, "milestones")
                for name in value.milestones if name not in config.milestones]
    problems += [problem("ref_without_step", field=f"milestone_step_refs.{name}", step_field="milestone_steps")
                 for name in value.milestone_step_refs if name not in value.milestone_steps]
    if value.milestone_steps and not config.milestone_steps:
        return problems + [problem("off_in_config", field="milestone_steps", key="milestone_steps")]
    for name, step in value.milestone_steps.items():
        if name not in config.milestones:
            problems.append(_not_configured("milestone_steps", name, "milestones"))
        elif value.milestones.get(name) is not True:
            problems.append(problem("not_reached", field=f"milestone_steps.{name}"))
        else:
            problems += step_problems(f"milestone_steps.{name}", step, value.milestone_step_refs.get(name), derivation)
    return problems


def _not_applicable_problems(value: AgentScorecardValue, agents: set, config: AgentScorecardConfig) -> List[Problem]:
    marked = value.not_applicable
    if not (marked.agents or marked.team):
        return []
    if not config.allow_na:
        return [problem("off_in_config", field="not_applicable", key="allow_na")]
    problems = []
    for name, dims in marked.agents.items():
        if name not in agents:
            problems.append(not_in_trace("not_applicable.agents", name))
        problems += _marked_dimension_problems(f"not_applicable.agents.{name}", dims, config.agent_dimensions,
                                               "agent_dimensions", value.agents.get(name, {}))
    problems += _marked_dimension_problems("not_applicable.team", marked.team, config.team_dimensions,
                                           "team_dimensions", value.team)
    return problems


def _marked_dimension_problems(path: str, dims: List[str], dimensions: List[str], key: str,
                               scored: Dict[str, int]) -> List[Problem]:
    problems = []
    for dim in dims:
        if dim not in dimensions:
            problems.append(_not_configured(path, dim, key))
        elif dim in scored:
            problems.append(problem("also_scored", field=path, value=dim))
    return problems
