"""derive pauses CPython's cyclic collector while it works and leaves it as it found it."""

import gc

from potato_multiagent import derive

RECORD = {"steps": [{"agent": "A", "tool_calls": [{"id": "c1", "name": "f"}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "ok"}, {"agent": "B"}]}


def test_the_collector_is_enabled_again_after_a_derivation():
    assert gc.isenabled()
    assert [h["kind"] for h in derive(RECORD).handoffs] == ["implicit"]
    assert gc.isenabled()


def test_a_collector_disabled_by_the_caller_stays_disabled():
    gc.disable()
    try:
        derive(RECORD)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_paused_during_the_derivation(monkeypatch):
    seen = []
    import potato_multiagent.trace.derivation as derivation

    real_edges = derivation.edges_and_handoffs

    def spying(steps):
        seen.append(gc.isenabled())
        return real_edges(steps)

    monkeypatch.setattr(derivation, "edges_and_handoffs", spying)
    derive(RECORD)
    assert seen == [False] and gc.isenabled()
