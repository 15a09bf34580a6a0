"""The derive options are declared once (trace/options.py) and every reader takes them from there."""

from __future__ import annotations

import pytest

from potato_multiagent import derive
from potato_multiagent.cli import build_parser
from potato_multiagent.trace import DeriveOptions
from potato_multiagent.types import SCHEMES

RECORD = {"trace": {"steps": [{"who": "Planner (thought)"}, {"who": "Coder"}]}}


@pytest.mark.parametrize("type_name", sorted(SCHEMES))
def test_every_config_reads_the_options_with_their_defaults(type_name):
    scheme = SCHEMES[type_name]
    config, problems = scheme.parse_config({"name": "s", "description": "d", "steps_key": "trace.steps",
                                            "agent_key": "who", "agent_qualifiers": False})
    assert problems == []
    assert config.derive_options() == {**DeriveOptions().derive_options(), "steps_key": "trace.steps",
                                       "agent_key": "who", "agent_qualifiers": False}
    assert scheme.widget_config(config)["derive_options"] == config.derive_options()
    assert set(DeriveOptions.model_fields) <= set(scheme.optional_fields())


def test_the_cli_flags_are_the_options():
    args = build_parser().parse_args(["derive", "f.jsonl", "--steps-key", "trace.steps", "--agent-key", "who",
                                      "--no-agent-qualifiers", "--agents", "Reviewer"])
    assert {name: getattr(args, name) for name in DeriveOptions.model_fields} == {
        "steps_key": "trace.steps", "agent_key": "who", "calls_key": "calls", "resource_key": "resource",
        "agents": ["Reviewer"], "agent_qualifiers": False}


def test_derive_reads_the_options_and_names_an_unknown_one():
    derivation = derive(RECORD, steps_key="trace.steps", agent_key="who", agent_qualifiers=False)
    assert derivation.agents == ["Planner (thought)", "Coder"]
    assert derive(RECORD, steps_key="trace.steps", agent_key="who").agents == ["Planner", "Coder"]
    with pytest.raises(TypeError, match="unknown option.*steps_path"):
        derive(RECORD, steps_path="trace.steps")
