"""The version string that names the gatekeeper's rules, the normal form and the excerpt
matcher's thresholds (``core.language.quotes``).

Every stored gatekeeper result carries ``GATEKEEPER_VERSION``; a session checked under an older
version can be re-checked under the current one and the difference explained by this string.
Change a threshold or the normal form -> change the version.
"""

from __future__ import annotations

from core.language.quotes import FUZZY_THRESHOLD, MIN_EXCERPT_CHARS, MIN_FRAGMENT_CHARS
from core.language.text import NORMALIZER_VERSION

# gk-2: changed words are rejected on the drift paths (core.language.quote_words); fuzzy alignment
# ignores spaces and punctuation between words; a quote may start or end at a separator inside
# an identifier (``OutOfMemoryError`` of ``java.lang.OutOfMemoryError``).
# gk-3: comparison / sign / approximation marks are part of a number; an ellipsis may not splice
# a label onto another field's number; hidden characters the ref lacks (bidi controls, tags,
# private use ...) reject; a stop-word substituted for another is a changed word; cited refs
# must be what the recorder's recipe makes of the raw output (evidence.refs_tampered); a
# negative observation's subject is read from its text as well as its subject fields.
# gk-4: a service a negative observation declares (``subject_services``) is not read as a
# lexicon topic where its text names it (a service called ``mysql`` is not the slow-query topic).
# gk-5: a mark after a number (``91%+``) and look-alike marks before it, hidden characters
# inside a number, look-alike digits, a quote that starts inside a number, a stop-word moved;
# arguments that are not the request their source served; a negative observation's search
# words, exact phrases, level, state, time window and exclusions compared with its text.
# gk-6: combining marks over letters the ref lacks; negation and comparison marks before words
# (``!firing``, ``service≠x``) added or dropped; a quote edge at a separator inside a name that
# goes on (``order-service`` of ``order-service-canary``, ``example.com`` of ``api.example.com``).
RULES_VERSION = "gk-6"

GATEKEEPER_VERSION = (
    f"{RULES_VERSION}/{NORMALIZER_VERSION}/fuzzy-{FUZZY_THRESHOLD / 100:.2f}"
    f"/minlen-{MIN_EXCERPT_CHARS}/frag-{MIN_FRAGMENT_CHARS}"
)
