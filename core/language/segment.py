"""Reading a run of Chinese characters as words, where the words of a dictionary cover it best.

Chinese writes no spaces, so a word searched as a substring can straddle two words: 认证
("authentication") is in 确认证书 ("confirm the certificate"), 关闭 ("closed") in 有关闭吗 only
if 有关 ("related") is not read first. ``segment`` picks, among every way of reading the run as
dictionary words (and characters no word covers), one that covers the most characters, then
uses the fewest words: 确认|证书, 有|关闭. A dynamic programme over the run's positions; a
question's runs are short.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet


def segment(run: str, words: AbstractSet[str], longest: int) -> list[tuple[int, int]]:
    """``[start, end)`` of each dictionary word in the best reading of ``run`` (see the module
    doc); ``longest`` is the length of the dictionary's longest word."""
    size = len(run)
    # best[i]: (characters covered, -words used, first word's end or i + 1) for run[i:].
    best: list[tuple[int, int, int]] = [(0, 0, size)] * (size + 1)
    for start in range(size - 1, -1, -1):
        covered, used, _ = best[start + 1]
        choice = (covered, used, start + 1)  # the character on its own
        for end in range(start + 2, min(size, start + longest) + 1):
            if run[start:end] in words:
                rest_covered, rest_used, _ = best[end]
                option = (rest_covered + end - start, rest_used - 1, end)
                if option[:2] > choice[:2]:
                    choice = option
        if start + 1 <= size and run[start] in words:  # a one-character word
            rest_covered, rest_used, _ = best[start + 1]
            option = (rest_covered + 1, rest_used - 1, start + 1)
            if option[:2] > choice[:2]:
                choice = option
        best[start] = choice
    found: list[tuple[int, int]] = []
    position = 0
    while position < size:
        end = best[position][2]
        covered_here = best[position][0] - best[end][0]
        if covered_here > 0:
            found.append((position, end))
        position = end
    return found
