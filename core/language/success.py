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

Word lists, not answers: which lines are searched follows from the concept this reading picks.
"""

from __future__ import annotations

import re

_CLAUSE_END = re.compile(r"[,;!?，；。？！、\n]|[.:](?=\s|$)|(?<![a-z])(?:and|or|but|while|whereas)(?![a-z])"
                         r"|和|或|但|而且|而|以及|还有|然后")
_SUCCESS = re.compile(r"(?<![a-z])(?:success|successful|successfully|succeed|succeeds|succeeded|accepted)"
                      r"(?![a-z])|成功")
# "有没有" asks a question: its 没有 negates nothing ("有没有登录成功的记录？").
_QUESTION_FORM = re.compile(r"有没有|是不是|能不能")
_WENT_WRONG = re.compile(
    r"(?<![a-z])(?:fail|fails|failed|failing|failure|failures|unsuccessful|unsuccessfully|unable|cannot|"
    r"not|never|denied|denies|deny|refuse|refused|refusing|reject|rejected|rejecting|invalid|incorrect|"
    r"wrong|bad)(?![a-z])|n't|n\u2019t"
    r"|失败|不成功|未成功|没成功|没有成功|无法|不能|没能|未能|不了|拒绝|错误|被拒")
_ONLY_TRIED = re.compile(r"(?<![a-z])(?:attempt|attempts|attempted|attempting|try|tries|tried|trying)"
                         r"(?![a-z])|尝试|试图")
_PAST_WORDING = re.compile(r"(?:logged|signed)[\s_\-]+(?:in|into|on)|authenticated|logged[\s_\-]*on")
_DID = re.compile(r"(?<![a-z])did(?![a-z])")
_JUST_BEFORE = re.compile(r"(?:(?<![a-z])last\s+|谁\s*|最后一次\s*|最后\s*|上一次\s*|上次\s*|最近一次\s*)$")
_JUST_AFTER = re.compile(r"^\s*(?:了|过)")


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the clause holding ``text[start:end]``."""
    opening = 0
    for match in _CLAUSE_END.finditer(text, 0, start):
        opening = match.end()
    closing = _CLAUSE_END.search(text, end)
    return opening, closing.start() if closing else len(text)


def success_words(normalized_text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the clause of the mention ``normalized_text[start:end]`` (text already passed
    through ``core.language.text.normalize``) says that what it names went right: the span of its
    success word, or the mention's own for a completed act; None when it does not say so (see
    the module doc)."""
    opening, closing = _clause(normalized_text, start, end)
    clause = _QUESTION_FORM.sub(lambda m: " " * len(m.group()), normalized_text[opening:closing])
    if _WENT_WRONG.search(clause):
        return None
    if (word := _SUCCESS.search(clause)) is not None:
        return opening + word.start(), opening + word.end()
    if _ONLY_TRIED.search(clause):
        return None
    wording = normalized_text[start:end]
    before = normalized_text[opening:start]
    completed = (_PAST_WORDING.fullmatch(wording) is not None or _DID.search(before) is not None
                 or _JUST_BEFORE.search(before) is not None
                 or _JUST_AFTER.match(normalized_text[end:closing]) is not None)
    return (start, end) if completed else None
