"""What every scheme shares: its config model, its value model, rendering and validation.

A scheme is a small class: ``Config`` (pydantic: the config keys, their types and defaults, which
are also the keys declared to Potato), ``Value`` (pydantic: the stored JSON shape), a template, and
``trace_problems`` for the marks a record does not contain. Behaviour lives in the widget script.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, ClassVar, Dict, List, Literal, Optional, Tuple, Type

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict, StrictStr, ValidationError
from pydantic_core import PydanticCustomError
from markupsafe import Markup

from ...rendering import escape_braces, render_template
from ...trace import DeriveOptions, Derivation, derive, unique_names
from ...trace.jsjson import StrictJSONError, strict_loads
from .proposal import Choice, Survey, when
from .words import Problem, field_path, problem, say, shape_problem, word


def _integral_float_to_int(value: Any) -> Any:
    """JSON has one number type: ``1.0`` and ``1`` are the same number (JS writes both as ``1``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def json_int(**bounds: int) -> Any:
    """An integer as JSON means it (``1`` or ``1.0``, never ``true`` or ``"1"``), with optional
    bounds (``ge``, ``le``, ``gt``, ``lt``).

    The bounds sit before the float converter so that pydantic writes them into the JSON Schema as
    ``minimum``/``maximum``: the widget checks stored values against that schema.
    """
    constraints = [Field(**bounds)] if bounds else []
    return Annotated[(int, Strict(), *constraints, BeforeValidator(_integral_float_to_int))]


JsonInt = json_int()
StepIndex = json_int(ge=0)
"""A 0-based index into the trace's steps (shown to annotators as ``#N`` = index + 1)."""
NonNegativeJsonInt = json_int(ge=0)
"""A 0-based position of anything else (a call, a region, a place within a step)."""


MAX_TEXT = 20_000
"""The most characters an annotator's free text (a reason, a note) holds: far above any answer
written by hand, and what the widgets' text boxes allow, so a page never stores more; the server
refuses a longer one (saves.py)."""

FreeText = Annotated[StrictStr, Field(max_length=MAX_TEXT)]
"""Text an annotator writes (a reason, a note), at most ``MAX_TEXT`` characters."""

Labels = Annotated[List[StrictStr], AfterValidator(unique_names)]
"""A config's list of labels an annotator reads (flags, verdicts, behaviours...): names, none twice."""


def no_repeats(items: list) -> list:
    """A stored list that is a set (flags, dimensions, turns): a repeat is named by its position,
    as the browser names it (``flags[2]: repeats an earlier item``)."""
    seen = set()
    for position, item in enumerate(items):
        if item in seen:
            raise PydanticCustomError("repeat", "repeats an earlier item", {"position": position})
        seen.add(item)
    return items


def unique_list(item_type: Any) -> Any:
    """A list stored as a set; the JSON Schema says ``uniqueItems`` so the browser agrees."""
    return Annotated[List[item_type], Field(json_schema_extra={"uniqueItems": True}), AfterValidator(no_repeats)]


class SchemeConfig(DeriveOptions):
    """Config keys every multiagent scheme reads: the derive options, plus name and description.

    Potato's own keys pass through untouched.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: StrictStr = Field(min_length=1, description="The scheme's name (Potato stores values under it).")
    description: StrictStr = Field(description="Shown as the question's title.")
    show_judgments: Literal["always", "after_answer", "never"] = Field(
        "always", description="When the judgments a record carries for this scheme (an LLM judge's or a "
        "baseline's answer, docs/judgments.md) are shown beside the controls: `after_answer` reveals them "
        "once the annotator has answered, to measure and limit anchoring.")
    judgments_key: StrictStr = Field(
        "judgments", min_length=1, description="The record field holding the shown judgments, "
        "`{scheme: [{source, value}]}` as `convert --judgments` writes it.")

    def widget_config(self) -> dict:
        """The JSON the widget script receives: everything but name and description, with ``derive_options``."""
        return self.browser_config(exclude={"name", "description"})


@lru_cache(maxsize=None)
def json_schema(model: Type[BaseModel]) -> dict:
    """A model's JSON Schema (the widget checks stored values against the Value model's)."""
    return model.model_json_schema()


def format_validation_error(error: ValidationError, model: Type[BaseModel], data: Any) -> List[str]:
    """One line per fault of ``data``, in the words the browser uses (:mod:`.words`): naming the
    field, ``decisive_step: should be an integer ≥ 0 or null, got -1``."""
    root = json_schema(model)
    return [shape_problem(item, root, data) for item in error.errors()]


def above_bound(field: str, value: Any, bound: Any) -> Problem:
    """The one wording for a stored number above the bound its scheme's config sets (a score past
    ``scale``): the configured bound, never the schema's ceiling. Same as value_shape.js's."""
    return problem("at_most", field=field, limit=bound, got=value)


def not_in_trace(field: str, value: Any) -> Problem:
    """The one wording for a stored mark the record does not contain (SPEC §5)."""
    return problem("not_in_trace", field=field, value=value)


class Scheme:
    """One annotation type.

    A type folder's ``scheme.py`` defines one subclass; it sets ``Config`` and ``Value`` (the
    registry sets ``widget`` from the folder name) and defines the classmethod
    ``trace_problems(value, derivation, config) -> list[Problem]``: what of a well-formed value
    the record or the config does not allow, each a code and its parameters
    (:func:`.words.problem`), worded only by :func:`.words.say` from the one table.
    """

    widget: ClassVar[str]
    """Short name, set by the registry from the type's folder (or its entry point): the widget
    script's name and the CSS class (``failure_attribution``)."""
    folder: ClassVar[Path]
    """The type's folder, set by the registry: its ``template.html`` is rendered from there."""
    Config: ClassVar[Type[SchemeConfig]]
    Value: ClassVar[Type[BaseModel]]
    summary: ClassVar[str] = ""
    proposal_order: ClassVar[int] = 1000
    """Where ``init`` lists the type among the others (lower first; the built-ins use 10 to 80)."""

    proposed_for: ClassVar[Optional[str]] = None
    """The :class:`Survey` count that makes ``init`` propose the type (``with_handoffs``), or None."""
    proposed_as: ClassVar[dict] = {}
    """The scheme ``init`` writes, beside its ``annotation_type`` (``name``, ``description``, ...)."""
    proposed_because: ClassVar[Tuple[str, str]] = ("", "")
    """Why it is proposed (``{count}`` and ``{runs}`` filled in), and why it is left out."""

    @classmethod
    def propose(cls, found: Survey) -> Choice:
        """Whether ``init`` writes this type for runs like ``found``: a :class:`Choice` with the
        scheme and the reason, or without a scheme and the reason it is left out. This default
        reads ``proposed_for``/``proposed_as``/``proposed_because``; a type that sets none is
        left out, to be added by hand."""
        if cls.proposed_for is None:
            return Choice(cls.widget, None, f"{cls.widget} is not proposed by init: add it by hand "
                                            f"(see: potato-multiagent docs {cls.widget})")
        count = getattr(found, cls.proposed_for)
        because, not_because = cls.proposed_because
        return when(count, cls.proposed_as["name"], {"annotation_type": cls.type_name(), **cls.proposed_as},
                    because.format(count=count, runs=found.of_runs()), not_because)

    @classmethod
    def type_name(cls) -> str:
        return f"multiagent.{cls.widget}"

    @classmethod
    def optional_fields(cls) -> List[str]:
        """The config keys declared to Potato (so ``potato validate --strict`` accepts them)."""
        return [key for key in cls.Config.model_fields if key not in ("name", "description")]

    # -- config -------------------------------------------------------------------------------
    @classmethod
    def parse_config(cls, scheme: dict) -> Tuple[Optional[SchemeConfig], List[str]]:
        """``(config, [])``, or ``(None, problems)`` naming each bad key."""
        try:
            return cls.Config.model_validate(scheme), []
        except ValidationError as error:
            return None, format_validation_error(error, cls.Config, scheme)

    # -- rendering ----------------------------------------------------------------------------
    @classmethod
    def render(cls, scheme: dict) -> Tuple[str, list]:
        """Potato's generator: the widget's HTML, or an error card naming the bad keys. Never raises."""
        name = str(scheme.get("name", "?"))
        try:
            config, problems = cls.parse_config(scheme)
            if config is None:
                return cls._error_card(name, "Configuration error", problems), []
            return render_template("template.html", folder=cls.folder, **cls._template_context(config, scheme)), []
        except Exception as error:  # the page must survive any surprise in one scheme
            return cls._error_card(name, "Rendering error", [f"{type(error).__name__}: {error}"]), []

    @classmethod
    def _template_context(cls, config: SchemeConfig, scheme: dict) -> dict:
        from potato.server_utils.schemas.identifier_utils import (
            generate_layout_attributes, generate_validation_attribute)

        return {"name": config.name, "description": config.description, "widget": cls.widget,
                "annotation_type": cls.type_name(), "widget_config": cls.widget_config(config),
                "validation": generate_validation_attribute(scheme),
                "layout_attributes": escape_braces(Markup(generate_layout_attributes(scheme))),
                "config": config, "max_text": MAX_TEXT}

    @classmethod
    def widget_config(cls, config: SchemeConfig) -> dict:
        """The one JSON the widget receives: its config keys, the JSON Schema of its value, and the
        derive options by themselves.

        The schema comes from the pydantic ``Value`` model, so the browser checks stored values
        against the same definition as :meth:`validate`, never a hand-written copy;
        ``derive_options`` (:meth:`DeriveOptions.browser_config`, as for the trace view) is what
        ``derive.js`` must be called with, so the browser need not keep its own list of option names.
        """
        return {**config.widget_config(), "value_schema": json_schema(cls.Value)}

    # -- saved step references (refs.py, docs/step-references.md) -------------------------------
    @classmethod
    def references(cls, data: Any) -> list:
        """Every step index the stored value ``data`` (parsed JSON, valid for :attr:`Value`) holds,
        as :class:`~.refs.StepReference` (field, index, saved identity, and how to rewrite them)."""
        return []

    @classmethod
    def settle(cls, data: Any, derivation: Derivation) -> Tuple[List[str], List[str]]:
        """After step references of ``data`` were rewritten for ``derivation`` (``migrate-values
        --rebase``): bring what follows from them up to date in place (positions in the derivation's
        lists, sorted unions; marks identified by content rather than by a step, found again).
        ``(moved, left)``: what else moved, and what could not be brought up to date, in words."""
        return [], []

    # -- gold (adjudicate) ----------------------------------------------------------------------
    @classmethod
    def agreed(cls, values: List[Any], config: SchemeConfig) -> Optional[Any]:
        """The part of annotators' differing ``values`` (valid, parsed) that every one of them gave and
        that goes to gold without being adjudicated again (MAST: the tags all of them made), or None:
        the whole value is adjudicated (this default)."""
        return None

    @classmethod
    def over_agreed(cls, agreed: Any, adjudicated: Any) -> Any:
        """The adjudicator's value over what :meth:`agreed` sent to gold (never dropping it)."""
        return adjudicated

    @classmethod
    def gold_top(cls, gold: Dict[str, Any], value: Any) -> Dict[str, Any]:
        """A gold line's top keys from the value of the task's one scheme of this type (failure
        attribution: Who&When's ``responsible_agent`` and ``decisive_step``); this default adds none."""
        return gold

    @classmethod
    def _error_card(cls, name: str, title: str, problems: List[str]) -> str:
        return render_template("error_card.html", name=name, title=title, problems=problems,
                               annotation_type=cls.type_name())

    # -- values -------------------------------------------------------------------------------
    @classmethod
    def validate(cls, value: Any, record: Any, config: SchemeConfig,
                 derivation: Optional[Derivation] = None) -> List[str]:
        """Problems of a stored value against its record; an empty list means valid.

        ``value`` is the stored JSON string (or already parsed data). An empty string or None is
        "nothing stored" and valid. Pass ``derivation`` when the caller already derived the
        record with this config's options (export validates many values per record).
        """
        if value is None or value == "":
            return []
        if isinstance(value, str):
            try:
                value = strict_loads(value)
            except StrictJSONError as error:
                return [word("not_json", reason=error)]
        try:
            parsed = cls.Value.model_validate(value)
        except ValidationError as error:
            return format_validation_error(error, cls.Value, value)
        if derivation is None:
            derivation = derive(record, **config.derive_options())
        return [say(found) for found in cls.trace_problems(parsed, derivation, config)]
