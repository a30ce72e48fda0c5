"""Whether a text says that what it names went right: "logged in successfully", "登录成功".

A concept such as ``login`` is about trouble (failed logins): a question about logins asks, as
a rule, why they fail. Some questions ask the opposite -- "Who logged in successfully?",
"sshd 有哪些登录成功的记录？", "When did root last log in?" -- and the lines that answer them are
other lines ("Accepted password for ...", "session opened for user ..."). ``said_to_succeed``
reads, around one mention of such a concept, whether its clause says so, and where:

- a success word ("successful", "succeeded", "accepted", "成功"), unless the clause also says it
  went wrong ("not", "failed", "unsuccessful", "拒绝", "没有成功" ...): "successful login
  attempts" succeeded, "登录不成功" did not;
- or the mention is a completed act of its own -- a past participle ("logged in", "signed
  in", "authenticated"), after "did" ("when did root last log in?", "did anyone log into the
  console?"), after "last" / "最后一次" / "上次", after "谁", or before 了 / 过 -- with nothing in
  the clause saying it went wrong, nor that it was only tried ("log in attempts", "tried to
  log in", "尝试登录").

A clause ends at punctuation (not the dot of an IP or a version) and at a conjunction, so
"failed logins, and who logged in successfully?" asks about both.

The words are data (``vocab/success.yaml``); the shapes around them are here.
Word lists, not answers: which lines are searched follows from the concept this reading picks.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from core.language import vocabulary
from core.language.alternation import one_of


@with_config(ConfigDict(extra="forbid"))
class _Words(TypedDict, total=False):
    """One word list of ``vocab/success.yaml``: ``words`` matched whole, ``substrings`` anywhere."""

    words: tuple[str, ...]
    substrings: tuple[str, ...]


@with_config(ConfigDict(extra="forbid"))
class _SuccessFile(TypedDict):
    """``vocab/success.yaml``."""

    clause_ends: _Words
    success: _Words
    went_wrong: _Words
    only_tried: _Words
    question_forms: _Words
    completed_before: _Words
    completed_after: _Words


class _Readers(NamedTuple):
    """The regexes a clause is read with (see the module doc)."""

    clause_end: re.Pattern[str]
    success: re.Pattern[str]
    question_form: re.Pattern[str]
    went_wrong: re.Pattern[str]
    only_tried: re.Pattern[str]
    just_before: re.Pattern[str]
    just_after: re.Pattern[str]


_PAST_WORDING = re.compile(r"(?:logged|signed)[\s_\-]+(?:in|into|on)|authenticated|logged[\s_\-]*on")
_DID = re.compile(r"(?<![a-z])did(?![a-z])")


def _pattern(name: str, listed: _Words) -> str:
    """A list as one alternation: its words whole, then its substrings (the longer of two
    starting alike first)."""
    words, substrings = listed.get("words", ()), listed.get("substrings", ())
    if not words and not substrings:  # an empty alternation would match everywhere
        raise vocabulary.VocabularyError(f"vocabulary success.yaml: {name}: a word list needs words or substrings")
    parts = [rf"(?<![a-z])(?:{one_of(words, longest_first=False)})(?![a-z])"] if words else []
    return "|".join(parts + [re.escape(word) for word in sorted(substrings, key=len, reverse=True)])


# Built on first use: most questions name no concept a success can change.
@cache
def _readers() -> _Readers:
    """The word lists' regexes (punctuation ends a clause too; not the dot of an IP or a version)."""
    lists = vocabulary.load("success", _SuccessFile)
    before = lists["completed_before"]
    _pattern("completed_before", before)  # refuses an empty list
    before_words = [rf"(?<![a-z])(?:{one_of(before['words'], longest_first=False)})\s+"] if before.get("words") else []
    before_words += [rf"(?:{one_of(before['substrings'], longest_first=False)})\s*"] if before.get("substrings") else []
    return _Readers(
        clause_end=re.compile(r"[,;!?，；。？！、\n]|[.:](?=\s|$)|" + _pattern("clause_ends", lists["clause_ends"])),
        success=re.compile(_pattern("success", lists["success"])),
        question_form=re.compile(_pattern("question_forms", lists["question_forms"])),
        went_wrong=re.compile(_pattern("went_wrong", lists["went_wrong"])),
        only_tried=re.compile(_pattern("only_tried", lists["only_tried"])),
        just_before=re.compile(f"(?:{'|'.join(before_words)})$"),
        just_after=re.compile(rf"^\s*(?:{_pattern('completed_after', lists['completed_after'])})"),
    )


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the clause holding ``text[start:end]``."""
    clause_end = _readers().clause_end
    opening = 0
    for match in clause_end.finditer(text, 0, start):
        opening = match.end()
    closing = clause_end.search(text, end)
    return opening, closing.start() if closing else len(text)


def success_words(normalized_text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the clause of the mention ``normalized_text[start:end]`` (text already passed
    through ``core.language.text.normalize``) says that what it names went right: the span of its
    success word, or the mention's own for a completed act; None when it does not say so (see
    the module doc)."""
    readers = _readers()
    opening, closing = _clause(normalized_text, start, end)
    clause = readers.question_form.sub(lambda m: " " * len(m.group()), normalized_text[opening:closing])
    if readers.went_wrong.search(clause):
        return None
    if (word := readers.success.search(clause)) is not None:
        return opening + word.start(), opening + word.end()
    if readers.only_tried.search(clause):
        return None
    wording = normalized_text[start:end]
    before = normalized_text[opening:start]
    completed = (_PAST_WORDING.fullmatch(wording) is not None or _DID.search(before) is not None
                 or readers.just_before.search(before) is not None
                 or readers.just_after.match(normalized_text[end:closing]) is not None)
    return (start, end) if completed else None
