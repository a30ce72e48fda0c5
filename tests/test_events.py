"""The event classes: each documented, each kind distinct, each round-trips through JSON."""

from __future__ import annotations

import pytest

from core.events import EVENT_TYPES, Event, SessionFinished, parse_event
from core.pipeline import run_investigation


def test_every_event_class_is_in_the_union_and_documented() -> None:
    defined = {cls for cls in Event.__subclasses__()}
    assert defined == set(EVENT_TYPES)
    for event_type in EVENT_TYPES:
        assert (event_type.__doc__ or "").strip(), f"{event_type.__name__} has no docstring"
    kinds = [event_type.model_fields["kind"].default for event_type in EVENT_TYPES]
    assert len(set(kinds)) == len(kinds)


@pytest.mark.parametrize("fault", [None, "tamper_number"])
def test_a_real_stream_round_trips_through_json(fault: str | None) -> None:
    events = list(run_investigation("只确认 payment-service 当前是否存在 CPU 使用率过高告警",
                                    executor_fault=fault))
    assert isinstance(events[-1], SessionFinished)
    assert {type(event) for event in events} <= set(EVENT_TYPES)
    for event in events:
        assert parse_event(event.model_dump(mode="json")) == event
