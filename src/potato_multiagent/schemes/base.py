"""What every scheme shares: its config model, its value model, rendering and validation.

A scheme is a small class: ``Config`` (pydantic: the config keys, their types and defaults, which
are also the keys declared to Potato), ``Value`` (pydantic: the stored JSON shape), a template, and
``trace_problems`` for the marks a record does not contain. Behaviour lives in the widget script.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, List, Optional, Tuple, Type

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, Strict, StrictBool, StrictStr, ValidationError,
                      field_validator)
from markupsafe import Markup

from ..rendering import escape_braces, render_template
from ..trace import Derivation, derive, is_name
from ..trace.jsjson import StrictJSONError, strict_loads


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


class SchemeConfig(BaseModel):
    """Config keys every multiagent scheme reads; Potato's own keys pass through untouched."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: StrictStr = Field(min_length=1, description="The scheme's name (Potato stores values under it).")
    description: StrictStr = Field(description="Shown as the question's title.")
    steps_key: StrictStr = Field("steps", min_length=1, description="Where the steps are; a dotted path is a path.")
    agent_key: StrictStr = Field("agent", min_length=1, description="First field tried for a step's agent.")
    calls_key: StrictStr = Field("calls", min_length=1, description="Where timed resource calls are.")
    resource_key: StrictStr = Field("resource", min_length=1, description="A call's resource field.")
    agents: Optional[List[StrictStr]] = Field(None, description="Static roster, listed before observed agents.")
    agent_qualifiers: StrictBool = Field(True, description="Read 'Orchestrator (thought)' as agent + qualifier.")

    @field_validator("agents")
    @classmethod
    def _roster_names(cls, roster: Optional[List[str]]) -> Optional[List[str]]:
        if roster is None:
            return roster
        for position, name in enumerate(roster):
            if not is_name(name):
                raise ValueError(f"entry {position} is empty or only whitespace")
        if len(set(roster)) != len(roster):
            raise ValueError("names must be unique")
        return roster

    def derive_options(self) -> dict:
        """The options of :func:`potato_multiagent.derive` this config sets."""
        return {"steps_key": self.steps_key, "agent_key": self.agent_key, "calls_key": self.calls_key,
                "resource_key": self.resource_key, "agents": self.agents,
                "agent_qualifiers": self.agent_qualifiers}

    def widget_config(self) -> dict:
        """The JSON the widget script receives: everything but name and description."""
        return self.model_dump(exclude={"name", "description"})


def field_path(loc: tuple) -> str:
    """A pydantic location as the widget writes it: ``[0].flags``, ``groupthink.instances[1].turns``.

    >>> field_path((0, "flags")), field_path(("groupthink", "instances", 1, "turns")), field_path(())
    ('[0].flags', 'groupthink.instances[1].turns', 'value')
    """
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "value"


def format_validation_error(error: ValidationError, prefix: str = "") -> List[str]:
    """One readable line per pydantic error, naming the field: ``decisive_step: Input should be ...``."""
    return [f"{prefix}{field_path(item['loc'])}: {item['msg']}" for item in error.errors()]


# Pydantic's bound errors in the words value_shape.js gives the same JSON Schema bounds in the
# browser, so `check` and the widget report a stored number out of range identically.
_BOUND_WORDS = {"greater_than_equal": ("ge", "should be at least"), "less_than_equal": ("le", "should be at most"),
                "greater_than": ("gt", "should be more than"), "less_than": ("lt", "should be less than")}


def format_value_error(error: ValidationError) -> List[str]:
    """Like :func:`format_validation_error`, for a stored value: bounds worded as the widget does."""
    lines = []
    for item in error.errors():
        bound_key, words = _BOUND_WORDS.get(item["type"], (None, None))
        bound = (item.get("ctx") or {}).get(bound_key)
        if words and bound is not None:
            lines.append(f"{field_path(item['loc'])}: {words} {bound}, got {item.get('input')}")
        else:
            lines.append(f"{field_path(item['loc'])}: {item['msg']}")
    return lines


def above_bound(field: str, value: Any, bound: Any) -> str:
    """The one wording for a stored number above the bound its scheme's config sets (a score past
    ``scale``): the configured bound, never the schema's ceiling. Same as value_shape.js's."""
    return f"{field}: should be at most {bound}, got {value}"


def not_in_trace(field: str, value: Any) -> str:
    """The one wording for a stored mark the record does not contain (SPEC §5)."""
    return f"{field}: '{value}' is not in this trace"


class Scheme:
    """One annotation type.

    Subclasses set ``widget``, ``Config`` and ``Value`` and define the classmethod
    ``trace_problems(value, derivation, config) -> list[str]``: the marks of a well-formed value
    that the record does not contain, each worded by :func:`not_in_trace`.
    """

    widget: ClassVar[str]
    """Short name: the template, the widget script and the CSS class (``failure_attribution``)."""
    Config: ClassVar[Type[SchemeConfig]]
    Value: ClassVar[Type[BaseModel]]
    summary: ClassVar[str] = ""

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
            return None, format_validation_error(error)

    # -- rendering ----------------------------------------------------------------------------
    @classmethod
    def render(cls, scheme: dict) -> Tuple[str, list]:
        """Potato's generator: the widget's HTML, or an error card naming the bad keys. Never raises."""
        name = str(scheme.get("name", "?"))
        try:
            config, problems = cls.parse_config(scheme)
            if config is None:
                return cls._error_card(name, "Configuration error", problems), []
            return render_template(f"{cls.widget}.html", **cls._template_context(config, scheme)), []
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
                "config": config}

    @classmethod
    def widget_config(cls, config: SchemeConfig) -> dict:
        """The one JSON the widget receives: its config keys and the JSON Schema of its value.

        The schema comes from the pydantic ``Value`` model, so the browser checks stored values
        against the same definition as :meth:`validate`, never a hand-written copy.
        """
        return {**config.widget_config(), "value_schema": cls.Value.model_json_schema()}

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
                return [f"value: not valid JSON ({error})"]
        try:
            parsed = cls.Value.model_validate(value)
        except ValidationError as error:
            return format_value_error(error)
        if derivation is None:
            derivation = derive(record, **config.derive_options())
        return cls.trace_problems(parsed, derivation, config)
