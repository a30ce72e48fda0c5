"""What a claim's text shows beyond its letters: hidden characters and combining marks.

A claim is read by its letters (``f̶i̶r̶i̶n̶g̶`` reads "firing") and shown as written (struck out);
tag characters spell out text no reader sees but a model does. Either way the claim would say
two things, so it fails ``verifier.hidden_marks`` unless its evidence holds the same marked
letters (a quote of a line that really carries them). Negation marks before words (``!firing``)
are negations (``core.language.marks.negation_marks``), judged with the negation words.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.language.invisible import BIDI_EXPLICIT
from core.language.marks import foreign_marks, hidden_characters


def _always_hidden(char: str) -> bool:
    """Tag characters and bidi controls: never in a claim, whatever its evidence holds."""
    return 0xE0000 <= ord(char) <= 0xE007F or char in BIDI_EXPLICIT


def marked_text(claim_text: str, evidence_texts: Sequence[str]) -> list[str]:
    """Why ``claim_text`` shows something other than what it reads (empty: it does not). A
    hidden character a quoted line really holds (a control) may be restated; a tag or bidi
    control never."""
    reasons: list[str] = []
    held = "".join(evidence_texts)
    hidden = hidden_characters("".join(
        char for char in set(claim_text) if _always_hidden(char) or char not in held))
    if hidden:
        reasons.append("hidden characters in the claim's text: " + ", ".join(hidden[:8])
                       + (f" (+{len(hidden) - 8} more)" if len(hidden) > 8 else ""))
    marked = foreign_marks(claim_text, tuple(evidence_texts))
    if marked:
        reasons.append("combining marks over letters no evidence holds: " + ", ".join(marked[:8]))
    return reasons
