"""The topics and concepts a question asks about, and the compounds they form (pass 6 of
``core.language.question``): mentions not joined by a conjunction ("会话过期",
"因为内存超限被杀掉") are asked together.
"""

from __future__ import annotations

from core.language.chars import HAN_RUN
from core.language.concepts import CONCEPTS, concept_mentions, named_before_a_place
from core.language.lexicon import topic_mentions
from core.language.question_words import (
    CONJUNCTION,
    HanDictionary,
    QuestionText,
    han_dictionary,
    unique,
)
from core.language.segment import segment


def _conjoined(text: str, first_end: int, second_start: int) -> bool:
    """Whether two mentions are joined by a conjunction (asked as separate subjects)."""
    return CONJUNCTION.search(text, first_end, max(first_end, second_start)) is not None


def _before_a_name(text: QuestionText, end: int) -> bool:
    """Whether the next word after ``end`` is a name an earlier pass took (a service, an alert,
    a quoted term): blank now, written in the original."""
    at = len(text.original) - len(text.original[end:].lstrip())
    return at < len(text.chars) and text.chars[at] == " "


def _blank_filler(text: QuestionText) -> None:
    """Blank the filler words of the question's Chinese runs that a name would be read across,
    where the best reading of the run has them (``core.language.segment``): 请确认证书 is
    请|确认|证书, so no 认证 (login) is read across 确认 and 证书. Other filler stays, for the
    readers that need it (最后一次登录: a login that happened)."""
    dictionary = han_dictionary()
    for run in HAN_RUN.finditer(text.current):
        chars = run.group()
        for start, end in segment(chars, dictionary.words, dictionary.longest):
            if chars[start:end] in dictionary.filler and _straddled(chars, start, end, dictionary):
                text.take(run.start() + start, run.start() + end)


def _straddled(chars: str, start: int, end: int, dictionary: HanDictionary) -> bool:
    """Whether a name in ``chars`` runs across a boundary of ``[start, end)``."""
    for first in range(max(0, start - dictionary.longest + 1), end):
        for last in range(first + 2, min(len(chars), first + dictionary.longest) + 1):
            inside = start <= first and last <= end
            if not inside and last > start and chars[first:last] in dictionary.names:
                return True
    return False


def subjects_asked(text: QuestionText) -> tuple[list[str], list[str], list[list[str]]]:
    """(lexicon topics, concepts, compounds) -- mentions in order; adjacent ones without a
    conjunction between them form a compound (qualifiers only qualify, they join none)."""
    _blank_filler(text)
    lowered = text.lowered
    mentions: list[tuple[int, int, str, bool]] = []  # start, end, name, is_topic
    for mention in topic_mentions(lowered):
        mentions.append((mention.start, mention.end, mention.topic, True))
        text.take(mention.start, mention.end)
    lowered = text.lowered
    for concept_mention in concept_mentions(lowered):
        if _before_a_name(text, concept_mention.end) and not named_before_a_place(lowered, concept_mention):
            continue  # "an ERROR log in zookeeper": "in" the service, not a login
        mentions.append((concept_mention.start, concept_mention.end, concept_mention.concept, False))
        text.take(concept_mention.start, concept_mention.end)
    mentions.sort()
    topics = unique(name for _, _, name, is_topic in mentions if is_topic)
    concepts = unique(name for _, _, name, is_topic in mentions if not is_topic)
    subjects = [m for m in mentions if m[3] or not CONCEPTS[m[2]].qualifier]
    compounds: list[list[str]] = []
    group: list[tuple[int, int, str, bool]] = []
    for subject in subjects:
        if group and not _conjoined(lowered, group[-1][1], subject[0]):
            group.append(subject)
            continue
        if len(group) > 1:
            compounds.append(unique(name for _, _, name, _ in group))
        group = [subject]
    if len(group) > 1:
        compounds.append(unique(name for _, _, name, _ in group))
    # Two lexicon topics side by side stay two subjects (the demo world's questions ask them one
    # by one); a compound needs a concept.
    return topics, concepts, [c for c in compounds if len(c) > 1 and any(m in CONCEPTS for m in c)]
