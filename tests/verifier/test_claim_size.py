"""What the verifier reads grows linearly with it, and what it reads is capped.

A claim of 80 KB took 90 s to replay and 3,000 claims over 30 s: readers scanned the whole claim
once per value (sentence, clause, bracket and quote lookups). The reading is timed against a
baseline in the same test (a ratio, so a slow machine does not fail it), and what lies past the
caps (``core.verifier.policy``) is not judged, in a reason that names the limit.
"""

from __future__ import annotations

import time

import pytest

from core.contracts import Claim, ExecutorOutput
from core.verifier.policy import MAX_CLAIM_CHARS, MAX_CLAIMS, MAX_OUTPUT_CLAIM_CHARS, over_limits
from core.verifier.roles import read_claim
from tests.test_verifier import Case

# Shapes that were quadratic: many sentences, one long sentence of values, quotes, brackets
# (nested and left open), "fires at" thresholds.
SHAPES = {
    "sentences": "payment-service 当前存在 HighCPUUsage 告警（firing）：当前值 92%，阈值 80%，已持续 25m。"
                 "相关日志：「CPU使用率过高: 86.0% → 92.0%, 活跃线程数: 245」。",
    "quotes": "「CPU使用率过高: 92.0%」 92% ",
    "brackets": "（当前值 92%（阈值 80%）） ",
    "open_brackets": "（92% ",
    "values": "92% 80% 25m ",
    "fires_at": "fires at 92% threshold 80% ",
}


def _read_seconds(unit: str, length: int) -> float:
    text = (unit * (length // len(unit) + 1))[:length]
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        read_claim(text, known_subjects=["payment-service"], default_subjects=["payment-service"])
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("shape", SHAPES)
def test_reading_a_claim_ten_times_longer_takes_about_ten_times_as_long(shape: str) -> None:
    short, long = _read_seconds(SHAPES[shape], 4_000), _read_seconds(SHAPES[shape], 40_000)
    # Linear is 10; the quadratic reading was 60-90.
    assert long / max(short, 1e-3) < 20, f"{shape}: {short:.3f}s for 4 KB, {long:.3f}s for 40 KB"


def _claim(index: int, text: str) -> Claim:
    return Claim(claim_id=f"claim-{index}", claim_type="observation", claim_text=text)


def test_the_caps_name_the_claims_past_them() -> None:
    assert over_limits([_claim(1, "x" * MAX_CLAIM_CHARS)]) == {}
    assert "80,000 characters long" in over_limits([_claim(1, "x" * 80_000)])[0]
    many = [_claim(index, "payment-service 当前存在 HighCPUUsage 告警") for index in range(MAX_CLAIMS + 3)]
    assert sorted(over_limits(many)) == [MAX_CLAIMS, MAX_CLAIMS + 1, MAX_CLAIMS + 2]
    total = [_claim(index, "x" * MAX_CLAIM_CHARS) for index in range(MAX_OUTPUT_CLAIM_CHARS // MAX_CLAIM_CHARS + 1)]
    assert list(over_limits(total)) == [len(total) - 1]


def test_a_claim_past_the_cap_is_not_judged_and_the_rest_are(demo_world: object) -> None:
    case = Case("只确认 order-service 是否存在 HighMemoryUsage 告警。", demo_world)  # type: ignore[arg-type]
    honest = case.output.claims[0]
    long = honest.model_copy(update={"claim_id": "claim-long",
                                     "claim_text": (honest.claim_text + " ") * 200})
    started = time.process_time()
    _, verifier = case.judge(ExecutorOutput(claims=[honest, long]))
    assert time.process_time() - started < 10
    results = {result.claim_id: result for result in verifier.claim_results}
    assert results[honest.claim_id].entailed
    assert not results["claim-long"].entailed and results["claim-long"].rule == "verifier.not_judged"
    assert f"at most {MAX_CLAIM_CHARS:,}" in results["claim-long"].reasons[0]


def test_the_rule_says_the_caps_the_policy_applies() -> None:
    from core.verifier import RULES

    described = RULES["verifier.not_judged"].description
    for cap in (MAX_CLAIM_CHARS, MAX_CLAIMS, MAX_OUTPUT_CLAIM_CHARS):
        assert f"{cap:,}" in described
