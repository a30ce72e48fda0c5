"""Word fidelity of a drifted quote: formatting may drift, words may not change.

Facts (numbers, identifiers, states, negations) are checked in ``facts``. A fuzzy score of 90
would still let a changed *word* through -- ``内存使用率过高`` -> ``内存使用率正常`` in a long log
line scores 97, ``request timed out`` -> ``request succeeded`` 94 -- and words such as
正常/异常, high/low, exhausted/available carry the meaning of the line. So the quote's tokens
are aligned with the ref region's tokens and every difference must be one of:

* tokenisation only: the differing runs are equal once joined (``3.4 gb/4 gb`` vs
  ``3.4gb/4gb``, CJK split by punctuation the quote left out);
* a stop-word added or dropped (``the``, ``a``, ``of`` ...) -- added *or* dropped: one put in
  place of another (``was`` for ``is``, ``a`` for ``the``) is a changed word;
* at the edges of the quote, a partial first or last word (the quote starts mid-word).

Anything else -- a CJK word changed, a word replaced or misspelt (one letter turns ``passed``
into ``paused``), a content word added or dropped -- is a changed word and the quote is not
supported: an excerpt is a quote, not a paraphrase.
"""

from __future__ import annotations

from core.language import facts

# Words a quote may add or drop: articles and copulas (``vocab/fact_words.yaml``).
STOP_WORDS: frozenset[str] = facts.FACT_WORDS.quote_stop_words


def _edge_partial(quoted: list[str], real: list[str], at_start: bool, at_end: bool) -> bool:
    """The quote's first (last) word is the tail (head) of the region's first (last) word."""
    if len(quoted) != 1 or len(real) != 1:
        return False
    return (at_start and real[0].endswith(quoted[0])) or (at_end and real[0].startswith(quoted[0]))


def _token_key(token: str) -> object:
    """A number token compares by value (``91.0%`` = ``91%``; ``facts`` checked the values)."""
    if facts.is_number_token(token):
        parsed = facts.parse_number_token(token)
        if parsed is not None:
            return tuple(parsed[0])
    return token


def _differing_blocks(quoted: list[str], real: list[str]) -> list[tuple[int, int, int, int]]:
    """Maximal runs of consecutive non-equal opcodes, as ``(q1, q2, r1, r2)``: a token split
    differently (one replace and one delete) is judged as one difference."""
    # rapidfuzz loads some forty modules (~10 ms): only for a quote whose words differ.
    from rapidfuzz.distance import Levenshtein

    blocks: list[tuple[int, int, int, int]] = []
    keys_quoted, keys_real = [_token_key(t) for t in quoted], [_token_key(t) for t in real]
    for opcode in Levenshtein.opcodes(keys_quoted, keys_real):
        q1, q2, r1, r2 = opcode.src_start, opcode.src_end, opcode.dest_start, opcode.dest_end
        if opcode.tag == "equal":
            continue
        if blocks and blocks[-1][1] == q1 and blocks[-1][3] == r1:
            blocks[-1] = (blocks[-1][0], q2, blocks[-1][2], r2)
        else:
            blocks.append((q1, q2, r1, r2))
    return blocks


def changed_words(fragment: str, region: str) -> str:
    """Why ``fragment``'s words differ from the ref ``region``'s ('' when only formatting
    drifted). Both texts are in the canonical normal form; ``region`` is the aligned span."""
    quoted, real = facts.tokens(fragment), facts.tokens(region)
    if quoted == real:
        return ""
    problems: list[str] = []
    added: list[str] = []
    dropped: list[str] = []
    for q1, q2, r1, r2 in _differing_blocks(quoted, real):
        quoted_run, real_run = quoted[q1:q2], real[r1:r2]
        if not quoted_run and (q1 == 0 or q1 == len(quoted)):
            continue  # region words beyond the quote's ends: the alignment's slack
        if "".join(quoted_run) == "".join(real_run):
            continue
        if _edge_partial(quoted_run, real_run, q1 == 0, q2 == len(quoted)):
            continue
        if (not quoted_run or not real_run) and all(word in STOP_WORDS for word in quoted_run + real_run):
            # a stop-word added or dropped; one substituted for another is a change
            (added if quoted_run else dropped).extend(quoted_run or real_run)
            continue
        problems.append(f"'{' '.join(quoted_run) or '(nothing)'}' where the ref has "
                        f"'{' '.join(real_run) or '(nothing)'}'")
    moved = sorted(set(added) & set(dropped))
    if moved:
        # dropped in one place and added in another: the words are in another order
        # ("Connection not is available" for "Connection is not available")
        problems.append(f"'{' '.join(moved)}' moved")
    return "changed words: " + "; ".join(problems) if problems else ""
