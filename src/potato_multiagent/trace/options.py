"""The options of :func:`derive`, declared once: name, type, default and meaning.

Every other place reads this model instead of repeating it: ``derive()`` takes its defaults from
it, every scheme's Config inherits it (so the options are config keys with the same defaults and
checks), the CLI builds its ``derive`` flags from it, and check and export pass
``config.derive_options()``. The browser twin receives them in each widget's config.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator

from .names import is_name


def unique_names(names: List[str]) -> List[str]:
    """A list of labels an annotator reads: each a name (not blank), none twice.

    The one wording of both faults, for every list of labels of every config.
    """
    seen = set()
    for position, name in enumerate(names):
        if not is_name(name):
            raise ValueError(f"entry {position} is empty or only whitespace")
        if name in seen:
            raise ValueError(f"'{name}' is listed twice")
        seen.add(name)
    return names


class DeriveOptions(BaseModel):
    """Where :func:`derive` finds steps, agents and calls in a record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps_key: StrictStr = Field("steps", min_length=1, description="Where the steps are; a dotted path (`trace.steps`) is a path.")
    agent_key: StrictStr = Field("agent", min_length=1, description="The first field read for a step's or a call's agent (see: potato-multiagent docs derivation, for the fields tried next).")
    calls_key: StrictStr = Field("calls", min_length=1, description="Where the timed resource calls are; a dotted path is a path.")
    resource_key: StrictStr = Field("resource", min_length=1, description="A call's resource field.")
    agents: Optional[List[StrictStr]] = Field(None, description="A roster, listed before the observed agents (an agent who never acts is still offered).")
    agent_qualifiers: StrictBool = Field(True, description="Read `Orchestrator (thought)` as agent `Orchestrator`, and `Orchestrator (-> WebSurfer)` as a message to WebSurfer.")

    @field_validator("agents")
    @classmethod
    def _roster_names(cls, roster: Optional[List[str]]) -> Optional[List[str]]:
        return roster if roster is None else unique_names(roster)

    def derive_options(self) -> Dict[str, Any]:
        """The keyword arguments of :func:`potato_multiagent.derive` these options set."""
        return {name: getattr(self, name) for name in DeriveOptions.model_fields}

    def browser_config(self, exclude: Set[str]) -> Dict[str, Any]:
        """The JSON a browser half receives (a widget's form, the trace view's section): the keys
        but ``exclude``, and ``derive_options`` by themselves, which ``derive.js`` is called with.
        The browser keeps no list of option names, and every widget and trace view on a page whose
        options are equal shares one derivation (widget.js ``pageDerivation``)."""
        return {**self.model_dump(exclude=exclude), "derive_options": self.derive_options()}


DEFAULTS: Dict[str, Any] = {name: field.default for name, field in DeriveOptions.model_fields.items()}
"""Each option's default, by name."""
