"""A model's habits, drawn once per (model, question) so every request of a session agrees.

None of these changes what the model means; each is a form a real mid-size model uses and the
product must read: several tool calls in one turn, arguments padded with whitespace or pretty
printed, alert names in another case, a free-text ``query`` where a ``topic`` would do, the
runbook looked up first, a tool called twice, the final answer in a code fence or with prose
around it, content sent as a list of parts, keys in another order, numbers as strings.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass


def rng_for(*parts: object) -> random.Random:
    """A random stream that depends only on ``parts`` (stable across processes)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


@dataclass(frozen=True)
class Habits:
    """How this model calls tools and writes its answer, for one session."""

    batch_calls: bool           # all first calls in one turn
    pretty_arguments: bool      # arguments JSON with newlines and spaces
    padded_values: bool         # " order-service " instead of "order-service"
    alert_case: str             # "as-is", "lower", "upper"
    free_text_query: bool       # query_logs(query=...) instead of topic=...
    knowledge_first: bool       # lookup_knowledge before anything else
    repeat_call: bool           # the metrics call made twice
    answer_form: str            # "bare", "fenced", "prose", "parts"
    shuffled_keys: bool         # JSON keys in another order
    ids_as_strings: bool        # "12" instead of 12 (and "3" for top_k)
    requery_on_repair: bool     # calls a tool again in the repair turn


ANSWER_FORMS = ("bare", "fenced", "prose", "parts")


def draw_habits(seed: int, question: str) -> Habits:
    """The habits of the model with ``seed`` for ``question``."""
    rng = rng_for("habits", seed, question)
    return Habits(
        batch_calls=rng.random() < 0.6, pretty_arguments=rng.random() < 0.5,
        padded_values=rng.random() < 0.3, alert_case=rng.choice(("as-is", "lower", "upper")),
        free_text_query=rng.random() < 0.5, knowledge_first=rng.random() < 0.4,
        repeat_call=rng.random() < 0.3, answer_form=rng.choice(ANSWER_FORMS),
        shuffled_keys=rng.random() < 0.5, ids_as_strings=rng.random() < 0.4,
        requery_on_repair=rng.random() < 0.4)
