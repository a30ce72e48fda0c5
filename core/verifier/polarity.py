"""Whether a claim's own words reverse or overstate the evidence it cites.

The roles (``support``, ``roles``) prove a claim's values sit where its evidence has them; this
module reads its *words*. Its state and outcome words come in pairs that exclude each other
(``vocab/antonyms.yaml``: succeed/fail, open/close, fire/resolve, available/unavailable,
kill/evict …, English and Chinese on each side). A word said under a negation ("not
available", 未恢复, "lacks a firing alert") says the other side. Then, for a claim:

- a side of a pair the evidence holds only the other of is a contradiction
  (``verifier.contradicts_evidence``): "failed to log in" citing ``Accepted password``;
- a pair the evidence holds neither side of (in no word form or synonym) is a state the
  evidence does not say ("backlog cleared" citing a backlog line): ``verifier.unsupported_fact``;
- so is a negation the evidence has none of, written in words the verifier's other lists lack
  ("is free of alerts"), and a quantifier or scope it does not hold ("in production", 一直);
  universals and amounts ("every pod", "plenty", 所有) are held as far as the evidence's count
  and values bear them out (``core/verifier/quantifiers.py``); an action said done ("was scaled
  up", 已回滚) must be one the evidence says (``core/verifier/actions.py``).

Only the claim's own words are read: its quotes are judged as quotes (``claims.py``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from core.language.concepts import concept_mentions, concepts_held
from core.language.facts import EN_NEGATIONS, FACT_WORDS, STATE_WORDS
from core.language.lexicon import expand_topics, topic_mentions, topics_in
from core.language.text import normalize
from core.language.vocabulary import VocabularyFile, load
from core.language.wordforms import holds_any_form, holds_word, synonyms, token_stems
from core.verifier import actions, quantifiers
from core.verifier.rules import CONTRADICTS_EVIDENCE, UNSUPPORTED_FACT
from core.verifier.support import Finding

_HAN = re.compile(r"[\u3400-\u9fff]")
# A clause: a negation does not reach across these.
_CLAUSE_END = re.compile(r"[,.;:!?，。；：！？、|\n()（）]")
# "isn't", "can't", "cannot": read as "not" before the text is cut into tokens.
_CONTRACTED = re.compile(r"n['’]t\b|\bcannot\b", re.IGNORECASE)


class AntonymPair(VocabularyFile):
    """Two sides of one state that exclude each other."""

    name: str
    one: tuple[str, ...]
    other: tuple[str, ...]
    # Whether a word of it the evidence says neither way is unsupported (vocab/antonyms.yaml).
    needs_evidence: bool = True


class Antonyms(VocabularyFile):
    """``vocab/antonyms.yaml``."""

    pairs: tuple[AntonymPair, ...]
    no_state_phrases: tuple[str, ...]
    negations_en: tuple[str, ...]
    negations_zh: tuple[str, ...]
    zh_negation_fillers: str
    en_negation_reach: int
    quantifiers_en: tuple[str, ...]
    quantifiers_zh: tuple[str, ...]


# Read at import, as every vocabulary is (so a file that lost its shape fails at once).
_ANTONYMS = load("antonyms", Antonyms)


def _antonyms() -> Antonyms:
    return _ANTONYMS


@dataclass(frozen=True)
class _Said:
    """A pair's word found in a text, and the side it says once its negation is read."""

    pair: str
    word: str
    side: int  # 0: the pair's "one", 1: its "other"
    negated: bool = False
    negation: str = ""  # the word that negates it, or the word itself when it is a negative one

    @property
    def shown(self) -> str:
        return f"{self.word}' (negated)" if self.negated else f"{self.word}'"


def findings(own_words: str, cited: list[str], shown: list[str], refs: list[str]) -> list[Finding]:
    """What the claim's own words (its text without quotes) say that its evidence does not.
    ``cited``: the verified excerpts and matched refs (what the data says); ``shown``: those
    and the query arguments (what a claim may also repeat: "searched all levels"); ``refs``:
    the matched lines, one per binding (the members a universal may count)."""
    found: list[Finding] = []
    written = own_words  # names of its members stay, topics or not ("HighCPUUsage and HighLatency")
    own_words = _without_evidence_topics(_no_state_phrases().sub(" ", own_words), cited)
    held: dict[str, set[int]] = {}
    for text in cited:
        for said in _said(text):
            held.setdefault(said.pair, set()).add(said.side)
    reported: set[str] = set()
    for said in _said(own_words):
        if said.pair in reported:
            continue
        sides = held.get(said.pair, set())
        if sides and said.side not in sides:
            reported.add(said.pair)
            found.append(Finding(CONTRADICTS_EVIDENCE, f"'{said.shown} says the opposite of what its "
                                 f"verified evidence says ({_pair(said.pair).name}: the evidence "
                                 f"says {_side_words(said.pair, 1 - said.side)})"))
        elif (not sides and _pair(said.pair).needs_evidence and not _a_named_state(said.word)
              and not _held_in_any_form(said, shown)):
            reported.add(said.pair)
            found.append(Finding(UNSUPPORTED_FACT, f"the state '{said.word}' is in no verified "
                                 "excerpt or ref, in any word form"))
    done = actions.unheld_actions(written, shown, renderings())
    if done:
        found.append(Finding(UNSUPPORTED_FACT, "action '" + "', '".join(done) + "' is said done by no "
                             "verified excerpt or ref, in any word form"))
    extra = _extra_negations(own_words)
    if extra and not any(_negations(text) for text in cited):
        found.append(Finding(UNSUPPORTED_FACT, "negation '" + "', '".join(extra)
                             + "' is in no verified excerpt or ref"))
    unheld = [word for word in _quantifiers(own_words) if not any(_holds(text, word) for text in shown)]
    if not quantifiers.universal_held(written, refs):
        unheld += [word for word in quantifiers.universals(own_words)
                   if not any(_holds(text, word) for text in shown)]
    for amount in quantifiers.amounts(own_words, cited):
        if any(_holds(text, amount.word) for text in shown):
            continue
        if amount.verdict == "contradicted":
            found.append(Finding(CONTRADICTS_EVIDENCE, f"'{amount.word}' says the opposite of what its "
                                 f"verified evidence says (the evidence says {amount.shown})"))
        elif amount.verdict == "overstated":
            found.append(Finding(UNSUPPORTED_FACT, f"'{amount.word}' is more than its verified "
                                 f"evidence says (the evidence says {amount.shown})"))
        elif amount.verdict == "unjudged":
            unheld.append(amount.word)
    if unheld:
        found.append(Finding(UNSUPPORTED_FACT, "'" + "', '".join(unheld) + "' is more than any verified "
                             "excerpt or ref says"))
    return found


def _without_evidence_topics(own_words: str, cited: list[str]) -> str:
    """The claim's words without the labels of topics and diagnosis concepts its evidence is
    about: "Pod 重启、停止相关的记录" names what its lines are about (停止: the shutdown concept,
    which an OOMKilled line is), it does not say a pod stopped."""
    normalized = normalize(own_words)
    if len(normalized) != len(own_words):
        own_words = normalized  # the spans are the normalized text's
    topics, concepts = _evidence_labels(tuple(cited))
    kept = list(own_words)
    spans = [(m.start, m.end) for m in topic_mentions(normalized) if m.topic in topics]
    spans += [(m.start, m.end) for m in concept_mentions(normalized) if m.concept in concepts]
    for start, end in spans:
        kept[start:end] = " " * (end - start)
    return "".join(kept)


@lru_cache(maxsize=1024)  # the same cited lines, claim after claim and session after session
def _evidence_labels(cited: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The topics (with those they include) and diagnosis concepts the cited texts are about."""
    topics = frozenset(expand_topics(topic for text in cited for topic in topics_in(text, in_logs=True)))
    concepts = frozenset().union(*(concepts_held(text) for text in cited))
    return topics, concepts


@cache
def _pair(name: str) -> AntonymPair:
    return next(pair for pair in _antonyms().pairs if pair.name == name)


@cache
def renderings() -> dict[str, tuple[str, ...]]:
    """Each Chinese word of a pair's side -> the English words of that side: 成功 is what
    "accepted" says, 建立 what "opened" says (``core.language.renderings``; callers do not change it)."""
    found: dict[str, list[str]] = {}
    for pair in _antonyms().pairs:
        for side in (pair.one, pair.other):
            english = [word for word in side if not _HAN.search(word)]
            for word in side:
                if _HAN.search(word):
                    found.setdefault(word, []).extend(english)
    return {word: tuple(english) for word, english in found.items()}


def _side_words(name: str, side: int) -> str:
    pair = _pair(name)
    return "/".join((pair.one, pair.other)[side][:2])


def _holds(text: str, word: str) -> bool:
    return holds_word(text, word) if _HAN.search(word) else holds_any_form(text, word)


def _a_named_state(word: str) -> bool:
    """An alert state the claim policy asks of the evidence itself ("firing", "resolved"):
    reported there once, not twice."""
    return any(_stems_of(word) == _stems_of(state) for state in STATE_WORDS)


def _held_in_any_form(said: _Said, shown: list[str]) -> bool:
    """Whether a text shows the word in a form or a synonym (neither side read as a pair)."""
    pair = _pair(said.pair)
    words = [said.word, *synonyms(said.word), *(pair.one, pair.other)[said.side]]
    return any(_holds(text, word) for text in shown for word in words)


# A claim's cited texts are read by findings and again by borne_out_negations.
@lru_cache(maxsize=256)
def _said(text: str) -> tuple[_Said, ...]:
    """Every pair word of a text, with the side it says (a negation before it flips it)."""
    found: list[_Said] = []
    text = _no_state_phrases().sub(" ", text)
    # NFKC, not lower case: a camelCase token splits by its case ("OOMKilled": oom, killed).
    for clause in _CLAUSE_END.split(_CONTRACTED.sub(" not", unicodedata.normalize("NFKC", text))):
        if not clause.strip():
            continue
        found += _said_zh(clause) + _said_en(clause)
    return tuple(found)


def _said_zh(clause: str) -> list[_Said]:
    if not _HAN.search(clause):
        return []
    taken = [False] * len(clause)
    found: list[_Said] = []
    for word, name, side in _chinese_pair_words():
        start = clause.find(word)
        while start >= 0:  # each occurrence, left to right, none overlapping the one before
            end = start + len(word)
            if not any(taken[start:end]):
                taken[start:end] = [True] * len(word)
                negation = _zh_negation(clause, start)
                found.append(_Said(name, word, side ^ bool(negation), bool(negation), negation))
            start = clause.find(word, end)
    return found


@cache
def _no_state_phrases() -> re.Pattern[str]:
    phrases = sorted(_antonyms().no_state_phrases, key=len, reverse=True)
    # One word-start test before the alternatives, not one per alternative: the same matches,
    # but a position inside a word fails at once (a tenth of the time over a log line).
    return re.compile(rf"(?<![^\W_])(?:{'|'.join(re.escape(phrase) for phrase in phrases)})", re.IGNORECASE)


def _zh_negation(clause: str, start: int) -> str:
    """The Chinese negation right before ``start`` (fillers between: 尚未, 没有), or ""."""
    before = clause[:start].rstrip(_antonyms().zh_negation_fillers + " ")
    negations = sorted(_antonyms().negations_zh, key=len, reverse=True)
    return next((word for word in negations if before.endswith(word)), "")


def _said_en(clause: str) -> list[_Said]:
    stems = tuple(token_stems(clause))
    if not stems:
        return []
    found: list[_Said] = []
    taken = [False] * len(stems)
    # Where each stem starts: a word is looked for only where its first stem is.
    starts: dict[str, list[int]] = {}
    for index, token in enumerate(stems):
        starts.setdefault(token, []).append(index)
    words, by_first_stem = _english_pair_words(), _english_words_by_first_stem()
    # Only the words whose first stem the clause has (and any without a stem), in the list's
    # order (longest first).
    for position in sorted({position for token in (*starts, "") for position in by_first_stem.get(token, ())}):
        word, name, side, wanted = words[position]
        width = len(wanted)
        for index in starts[wanted[0]] if width else range(len(stems) + 1):
            if stems[index:index + width] != wanted or any(taken[index:index + width]):
                continue
            taken[index:index + width] = [True] * width
            negation = _en_negation(stems, index)
            found.append(_Said(name, word, side ^ bool(negation), bool(negation), negation))
    return found


def _en_negation(stems: tuple[str, ...], index: int) -> str:
    """The English negation within reach before ``stems[index]``, or ""."""
    reach = _antonyms().en_negation_reach
    window = stems[max(0, index - reach):index]
    return next((word for word in _antonyms().negations_en if _phrase_in(_stems_of(word), window)), "")


# The pairs' words, longest first (a longer word takes its tokens before a shorter one inside
# it), each English one with its stems: read once, not for every clause of every text.
@cache
def _chinese_pair_words() -> tuple[tuple[str, str, int], ...]:
    words = [(word, pair.name, side) for pair in _antonyms().pairs
             for side, side_words in enumerate((pair.one, pair.other))
             for word in side_words if _HAN.search(word)]
    return tuple(sorted(words, key=lambda entry: len(entry[0]), reverse=True))


@cache
def _english_pair_words() -> tuple[tuple[str, str, int, tuple[str, ...]], ...]:
    words = [(word, pair.name, side, _stems_of(word)) for pair in _antonyms().pairs
             for side, side_words in enumerate((pair.one, pair.other))
             for word in side_words if not _HAN.search(word)]
    return tuple(sorted(words, key=lambda entry: len(entry[3]), reverse=True))


@cache
def _english_words_by_first_stem() -> dict[str, tuple[int, ...]]:
    """First stem -> the positions in ``_english_pair_words`` of the words starting with it
    (``""``: a word without a stem)."""
    found: dict[str, list[int]] = {}
    for position, (_, _, _, wanted) in enumerate(_english_pair_words()):
        found.setdefault(wanted[0] if wanted else "", []).append(position)
    return {stem: tuple(positions) for stem, positions in found.items()}


@cache
def _stems_of(word: str) -> tuple[str, ...]:
    """A list word's stems (the lists are read against every clause)."""
    return tuple(token_stems(word))


def borne_out_negations(own_words: str, cited: list[str]) -> set[str]:
    """The negations of the claim that say a state its evidence says in other words: 尚未恢复 of a
    firing alert, 不可用 / "unavailable" of "Connection is not available". The claim policy asks
    every other negation of the evidence itself."""
    held: dict[str, set[int]] = {}
    for text in cited:
        for said in _said(text):
            held.setdefault(said.pair, set()).add(said.side)
    borne: set[str] = set()
    for said in _said(own_words):
        if said.side not in held.get(said.pair, set()):
            continue
        if said.negation:
            borne.add(said.negation)
        # A negative word of its own: "unavailable", 不可用 (whose 不 the policy reads).
        borne |= {said.word, said.word[0]}
    return borne


def _negations(text: str) -> list[str]:
    """The negations of a text, any of the lists'."""
    stems = tuple(token_stems(_CONTRACTED.sub(" not", text)))
    normalized = normalize(text)
    found = [word for word in _antonyms().negations_en if _phrase_in(_stems_of(word), stems)]
    return found + [word for word in _antonyms().negations_zh if word in normalized]


def _extra_negations(own_words: str) -> list[str]:
    """Negations of the claim that the claim policy's own list does not read (it reads the
    others and asks them of the evidence itself)."""
    known = {*EN_NEGATIONS, *FACT_WORDS.zh_negations}
    return [word for word in _negations(own_words) if word not in known]


def _phrase_in(wanted: tuple[str, ...], stems: tuple[str, ...]) -> bool:
    width = len(wanted)
    return bool(wanted) and any(stems[i:i + width] == wanted for i in range(len(stems) - width + 1))


def _quantifiers(own_words: str) -> list[str]:
    normalized = normalize(own_words)
    have = tuple(token_stems(own_words))
    found = [word for word in _antonyms().quantifiers_en if _phrase_in(_stems_of(word), have)]
    return found + [word for word in _antonyms().quantifiers_zh if word in normalized]

