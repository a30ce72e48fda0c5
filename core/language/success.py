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
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, model_validator

from core.language import vocabulary


class _Words(BaseModel):
    """One word list of ``vocab/success.yaml``: ``words`` matched whole, ``substrings`` anywhere."""

    words: tuple[str, ...] = ()
    substrings: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _not_empty(self) -> _Words:
        # An empty alternation would match everywhere: every clause would go wrong.
        if not self.words and not self.substrings:
            raise ValueError("a word list needs words or substrings")
        return self

    def pattern(self) -> str:
        """The list as one alternation (the longer of two substrings starting alike first)."""
        parts = [rf"(?<![a-z])(?:{'|'.join(map(re.escape, self.words))})(?![a-z])"] if self.words else []
        parts += [re.escape(word) for word in sorted(self.substrings, key=len, reverse=True)]
        return "|".join(parts)


class _SuccessFile(BaseModel):
    """``vocab/success.yaml``."""

    clause_ends: _Words
    success: _Words
    went_wrong: _Words
    only_tried: _Words
    question_forms: _Words
    completed_before: _Words
    completed_after: _Words


@dataclass(frozen=True)
class _Readers:
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


# Built on first use: most questions name no concept a success can change.
@cache
def _readers() -> _Readers:
    """The word lists' regexes (punctuation ends a clause too; not the dot of an IP or a version)."""
    words = vocabulary.load("success", _SuccessFile)
    before = words.completed_before
    before_words = [rf"(?<![a-z])(?:{'|'.join(map(re.escape, before.words))})\s+"] if before.words else []
    before_words += [rf"(?:{'|'.join(map(re.escape, before.substrings))})\s*"] if before.substrings else []
    return _Readers(
        clause_end=re.compile(r"[,;!?，；。？！、\n]|[.:](?=\s|$)|" + words.clause_ends.pattern()),
        success=re.compile(words.success.pattern()),
        question_form=re.compile(words.question_forms.pattern()),
        went_wrong=re.compile(words.went_wrong.pattern()),
        only_tried=re.compile(words.only_tried.pattern()),
        just_before=re.compile(f"(?:{'|'.join(before_words)})$"),
        just_after=re.compile(rf"^\s*(?:{words.completed_after.pattern()})"),
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
