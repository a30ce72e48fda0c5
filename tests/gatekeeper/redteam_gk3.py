"""Red-team edits of the classes a held-out round found passing gk-2 (issue 11), for the corpus.

Quote edits: a comparison, sign or approximation mark put in front of a number; a label spliced
onto another field's number across an ellipsis; hidden characters (tags, private use, bidi
controls, variation selectors, controls); a stop-word substituted for another. Benign
counterparts: the copy-paste invisibles, spaced ``=``, dash variants, a copula dropped.
Document edits: a ref text or a raw output edited, an entry removed, an invocation copied from
another session with its ``session_id`` nulled. Negative observations: the claim text names
another topic or service than the subject fields and the query.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from itertools import pairwise

from core.contracts import Claim, Invocation, SessionDocument
from core.language.chars import HAN
from core.language.lexicon import TOPICS

# A number that starts a token: after a space, a bracket, ``=`` or ``:`` (ASCII or full-width).
_NUMBER_START_RE = re.compile(r"(?:(?<=^)|(?<=[\s=:：(\[（【]))\d+(?:\.\d+)?")
# ``label=number`` / ``label: number`` / ``label number`` (ASCII or CJK label).
_LABELLED_RE = re.compile(rf"([A-Za-z_]+|[{HAN}]+)\s*[=:：]?\s*(\d+(?:\.\d+)?[%A-Za-z]*)")
MARKS = ("<", ">", "≤", "≥", "≠", "≈", "~", "±", "-", "＜", "<=", "!=")
HIDDEN = {
    "tags": "\U000e0049\U000e0047\U000e004e\U000e004f\U000e0052\U000e0045",  # "IGNORE" in tags
    "private_use": "\ue000",
    "rtl_override": "\u202e",
    "rtl_isolate": "\u2067",
    "rtl_mark": "\u200f",
    "variation_selector": "\ufe0f",
    "backspace": "\b",
}
STOP_SWAPS = ((" is ", " was "), (" are ", " were "), (" a ", " the "), (" the ", " a "))


def forged_quote_edits(excerpt: str) -> Iterator[tuple[str, str]]:
    """(name, edited excerpt) of the gk-3 classes: each must be rejected."""
    first = _NUMBER_START_RE.search(excerpt)
    if first:
        for index, mark in enumerate(MARKS):
            yield f"mark{index}", excerpt[:first.start()] + mark + excerpt[first.start():]
        for name, hidden in HIDDEN.items():
            yield f"hidden_{name}", excerpt[:first.end()] + hidden + excerpt[first.end():]
    yield "hidden_tags_appended", excerpt + HIDDEN["tags"]
    pairs = [match for match in _LABELLED_RE.finditer(excerpt) if match.group(1).lower() not in ("t", "t0")]
    for one, two in pairwise(pairs):
        if one.group(2) != two.group(2):
            yield "spliced_label", excerpt[:one.end(1)] + " … " + excerpt[two.start(2):]
            break
    for old, new in STOP_SWAPS:
        if old in excerpt:
            yield f"stop_swap_{old.strip()}", excerpt.replace(old, new, 1)


def inside_number(before: str, after: str) -> bool:
    """Whether the place between two characters is inside a number (``9|1%``, ``3.|8GB``,
    ``5c|7d``): there even a benign invisible character rejects (docs/gatekeeper-rules.md)."""
    before, after = unicodedata.normalize("NFKC", before), unicodedata.normalize("NFKC", after)

    def in_token(char: str) -> bool:
        return char.isascii() and (char.isalnum() or char in ".%")
    return in_token(before) and in_token(after) and (before.isdigit() or after.isdigit())


def join_outside_numbers(chunks: list[str], mark: str) -> str:
    """The chunks joined by ``mark`` wherever the join is not inside a number."""
    out = chunks[0] if chunks else ""
    for chunk in chunks[1:]:
        out += ("" if inside_number(out[-1:], chunk[:1]) else mark) + chunk
    return out


def benign_quote_edits(excerpt: str) -> Iterator[tuple[str, str]]:
    """(name, edited excerpt) that only reformat: each must still pass."""
    chunks = [excerpt[i:i + 7] for i in range(0, len(excerpt), 7)]
    yield "word_joiner", join_outside_numbers(chunks, "\u2060")
    yield "zero_width_joiner", join_outside_numbers(chunks, "\u200d")
    yield "soft_hyphen", join_outside_numbers(chunks, "\u00ad")
    yield "bom_prefix", "\ufeff" + excerpt
    yield "ideographic_spaces", excerpt.replace(" ", "\u3000")
    if "=" in excerpt:
        yield "spaced_equals", excerpt.replace("=", " = ")
    if " - " in excerpt:
        yield "em_dash", excerpt.replace(" - ", " — ")
    if " is " in excerpt:
        yield "copula_dropped", excerpt.replace(" is ", " ", 1)


def _number_changed(text: str) -> str | None:
    match = re.search(r"\d(?=\d*(?:\.\d+)?%|\d*ms|\d*GB)", text)
    if match is None:
        return None
    digit = str((int(match.group()) + 1) % 10)
    return text[:match.start()] + digit + text[match.end():]


def document_edits(document: SessionDocument, invocation: Invocation, raw_path: str,
                   others: list[SessionDocument]) -> Iterator[tuple[str, SessionDocument, int, str]]:
    """(family.name, edited document, invocation id to cite, excerpt) per edit: the cited
    invocation's refs or output edited, or a copy of another session's invocation."""
    details = invocation.retrieval_details
    if details is None:
        return
    index = next((i for i, ref in enumerate(details.evidence_refs) if ref.raw_path == raw_path), None)
    if index is None:
        return
    key = raw_path.split("[")[0].removeprefix("$.")
    entry = int(raw_path.split("[")[1].rstrip("]"))  # in its own list (refs hold several lists)
    text = details.evidence_refs[index].text
    edited_text = _number_changed(text)
    if edited_text is not None:
        refs = list(details.evidence_refs)
        refs[index] = refs[index].model_copy(update={"text": edited_text})
        edited_details = details.model_copy(update={"evidence_refs": refs})
        tampered = invocation.model_copy(update={"retrieval_details": edited_details})
        yield "refs.ref_text_edited", _replace(document, tampered), invocation.invocation_id, edited_text
        entries = [dict(entry) for entry in invocation.output[key]]
        field = next((name for name, value in entries[entry].items()
                      if isinstance(value, str) and _number_changed(value)), None)
        if field:
            entries[entry][field] = _number_changed(entries[entry][field])
            edited = invocation.model_copy(update={"output": {**invocation.output, key: entries}})
            yield "refs.output_edited", _replace(document, edited), invocation.invocation_id, text
    trimmed = invocation.model_copy(update={"output": {**invocation.output, key: invocation.output[key][:entry]}})
    yield "refs.entry_removed", _replace(document, trimmed), invocation.invocation_id, text
    for other in others:
        donor = next((inv for inv in other.invocations if inv.tool_name == invocation.tool_name
                      and inv.retrieval_details and inv.retrieval_details.evidence_refs), None)
        if donor is not None and donor.retrieval_details is not None:
            copied = donor.model_copy(update={"session_id": None})
            ref = donor.retrieval_details.evidence_refs[0]
            extended = document.model_copy(update={"invocations": [*document.invocations, copied]})
            yield "session.copied_null_session", extended, donor.invocation_id, ref.text
            return


def _replace(document: SessionDocument, invocation: Invocation) -> SessionDocument:
    return document.model_copy(update={"invocations": [
        invocation if inv.invocation_id == invocation.invocation_id else inv for inv in document.invocations]})


def negative_text_swaps(claim: Claim) -> Iterator[tuple[str, Claim]]:
    """The same negative citation (its first) under a claim whose *text* names another topic or
    service, its subject fields left as they were (gk-2 read only the fields)."""
    claim = claim.model_copy(update={"evidence_bindings": claim.evidence_bindings[:1]})
    for topic in claim.subject_topics:
        known = TOPICS.get(topic)
        if known is None:
            continue
        other = next(t for name, t in TOPICS.items()
                     if name not in (topic, *known.includes) and topic not in t.includes)
        for label, replacement in ((known.label_zh, other.label_zh), (known.label_en, other.label_en)):
            if label in claim.claim_text:
                yield "negative.text_topic", claim.model_copy(update={
                    "claim_text": claim.claim_text.replace(label, replacement)})
                break
    for service in claim.subject_services:
        if service in claim.claim_text:
            yield "negative.text_service", claim.model_copy(update={
                "claim_text": claim.claim_text.replace(
                    service, "billing-service" if service != "billing-service" else "order-service")})
