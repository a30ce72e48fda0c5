"""Arguments and subject fields as a model writes them: values padded with whitespace, ``match``
in another case, a metric or product name declared as a subject topic. The tools read them as
the plain values, so the gatekeeper's coverage does too."""

from __future__ import annotations

from core.contracts import Claim, Invocation
from core.gatekeeper import coverage
from core.tools.args import argument_values


def _query(**arguments: object) -> Invocation:
    return Invocation(invocation_id=1, session_id="s", tool_name="query_logs", arguments=arguments)


def test_padded_values_are_the_values() -> None:
    assert argument_values({"service": " order-service ", "terms": [" HikariCP", " "]},
                                    ("service", "terms")) == ["order-service", "HikariCP"]
    scope = coverage.scope_of(_query(service=" inventory-service\n", topic=" connection_pool "))
    assert scope.services == frozenset({"inventory-service"})
    assert scope.covers("inventory-service", "connection_pool")


def test_match_any_in_any_case() -> None:
    # keywords, not terms: an exact phrase (terms) never stands for its topic (gk-5)
    for match in ("any", "ANY", " Any "):
        either = coverage.scope_of(_query(service="order-service",
                                          keywords=["HikariCP", "OutOfMemoryError"], match=match))
        assert either.covers("order-service", "connection_pool"), match
        assert either.covers("order-service", "oom"), match
    both = coverage.scope_of(_query(service="order-service", keywords=["HikariCP", "OutOfMemoryError"],
                                    match="all"))
    assert not both.covers("order-service", "connection_pool")


def test_declared_topics_may_be_metric_or_product_names() -> None:
    claim = Claim(claim_id="c", claim_type="negative_observation",
                  claim_text="未检索到相关日志", subject_services=[" Inventory-Service "],
                  subject_topics=["HikariCP", "cpu_usage_percent", "order 123"])
    assert coverage.claim_subject(claim) == (["inventory-service"], ["connection_pool", "cpu"])
