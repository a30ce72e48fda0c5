"""Reading text in Chinese and English: questions, log lines, excerpts, claims.

The one home of text handling. The stages (rules engine, verifier, gatekeeper, tools) take
their text utilities from here and never from one another:

- ``text``: the normalisers (``normalize``, ``casefold``, ``fold`` keeping offsets, the
  gatekeeper's ``normalize_text``; ``nfkc``: NFKC, quick on Chinese text); ``chars``:
  character classes (Han, kana, Hangul);
  ``invisible`` and ``confusables``: characters that hide or imitate others;
- ``numbers`` (numerals in both languages), ``quantities`` (values with units and their roles),
  ``signs`` (signs and comparisons before a number), ``facts`` (numbers, identifiers,
  negations a text states);
- ``time``: time windows and dates in a question; ``scope``: narrow markers and exclusions;
  ``subjects``: what a text mentions of a plan's subjects; ``segment``: Chinese word breaks;
- ``lexicon`` (topics, services, alert names), ``concepts`` (diagnosis concepts, Chinese ->
  English log words), ``success`` (whether a text says something went right),
  ``alternation`` (``one_of``: every word alternation built from a list; big ones compiled
  lazily);
- ``read``: the reading of a whole question (``reading.QuestionReading``, which the plan
  carries): its exclusions, time window and the passes of ``question`` (``names``,
  ``entities`` -- the hosts, users ... the data names --, ``subjects_asked``, ``levels``,
  ``keywords``; their words: ``question_words``);
- ``clauses``, ``mentions``, ``cues``: how claims and evidence are read;
- ``quotes``: whether an excerpt quotes a text (``match_excerpt``: exact, truncated or drifted,
  never with a changed fact; its words: ``quote_words``, its ellipses: ``quote_labels``), which
  the gatekeeper checks every citation with and the verifier a claim's quoted words.

Vocabularies (word lists) are data: ``core/language/vocab/*.yaml``, read by ``vocabulary``.
"""
