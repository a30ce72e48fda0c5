"""Actions a claim says were done, which its evidence must say too (``vocab/action_words.yaml``):
"the order-service connection pool was scaled up" / 连接池已扩容 citing
``HikariPool-1 - Connection is not available`` shares the line's nouns and adds an action no
tool returned (``verifier.unsupported_fact``). A done form only: "needs to be scaled up", 建议扩容
take no action. English forms are held by the evidence in any form or synonym ("restarted" by
``restart count 3``); Chinese ones in translation (重启 by "restarted").
"""

from __future__ import annotations

import re
from functools import cache

from core.language.alternation import one_of
from core.language.clauses import content_units, stems
from core.language.renderings import rendered_units
from core.language.text import fold
from core.language.vocabulary import VocabularyFile, load
from core.language.wordforms import holds_any_form


class ActionWords(VocabularyFile):
    """``vocab/action_words.yaml``."""

    done_en: tuple[str, ...]
    done_zh: tuple[str, ...]
    done_before_zh: tuple[str, ...]
    done_after_zh: tuple[str, ...]


WORDS = load("action_words", ActionWords)


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    english = re.compile(r"(?<![\w\-])(?:" + "|".join(
        re.escape(word) for word in sorted(WORDS.done_en, key=len, reverse=True)) + r")(?![\w\-])", re.IGNORECASE)
    done = one_of(WORDS.done_zh)
    chinese = re.compile(rf"(?:{one_of(WORDS.done_before_zh)})\s*(?P<before>{done})"
                         rf"|(?P<after>{done})\s*(?:{one_of(WORDS.done_after_zh)})")
    return english, chinese


def done_actions(own_words: str) -> list[str]:
    """The actions the claim's own words say were done."""
    english, chinese = _patterns()
    found = [match.group().lower() for match in english.finditer(own_words)]
    found += [match.group("before") or match.group("after") for match in chinese.finditer(own_words)]
    return list(dict.fromkeys(found))


def unheld_actions(own_words: str, shown: list[str], renderings: dict[str, tuple[str, ...]]) -> list[str]:
    """The done actions of the claim no evidence text holds (``renderings``: the verifier's
    extra Chinese words for English ones, the antonym pairs' sides)."""
    actions = done_actions(own_words)
    if not actions:
        return []
    units = stems(set().union(*(content_units(fold(text)) for text in shown))) if shown else set()
    held_zh = units | rendered_units(units, renderings)
    return [action for action in actions
            if not (content_units(action) <= held_zh if not action.isascii()
                    else any(holds_any_form(text, action) for text in shown))]
