"""derive() pauses Python's cyclic collector while it runs and leaves it as it found it
(trace/derivation.py ``_collector_paused``): a caller's setting must survive a derivation."""

import gc

import pytest

from potato_multiagent import derive
from potato_multiagent.trace import derivation

RECORD = {"steps": [{"agent": "A", "tool_calls": [{"id": "c1", "name": "search"}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "done"}, {"agent": "B"}],
          "calls": [{"agent": "A", "resource": "db", "start": 0, "end": 2},
                    {"agent": "B", "resource": "db", "start": 1, "end": 3}]}


@pytest.fixture
def collector_restored():
    was_enabled = gc.isenabled()
    yield
    (gc.enable if was_enabled else gc.disable)()


def test_collector_paused_during_derive_and_enabled_again(collector_restored, monkeypatch):
    gc.enable()
    seen = []
    real = derivation.contention_regions
    monkeypatch.setattr(derivation, "contention_regions", lambda calls: seen.append(gc.isenabled()) or real(calls))
    result = derive(RECORD)
    assert seen == [False]
    assert gc.isenabled()
    assert [region["agents"] for region in result.contentions] == [["A", "B"]]


def test_a_disabled_collector_stays_disabled(collector_restored):
    gc.disable()
    derive(RECORD)
    assert not gc.isenabled()


def test_collector_enabled_again_when_the_derivation_raises(collector_restored, monkeypatch):
    gc.enable()

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(derivation, "edges_and_handoffs", broken)
    with pytest.raises(RuntimeError):
        derive(RECORD)
    assert gc.isenabled()
