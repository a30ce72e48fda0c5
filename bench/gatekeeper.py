"""Benchmark: the gatekeeper's excerpt matcher against difflib and a bare substring check.

Generates a corpus of bindings over realistic ref texts (alerts, Chinese and English log lines,
runbook blocks): ~80% exact quotes, ~15% formatting drift (case, whitespace, full-width and
Chinese punctuation, zero-width characters, truncation with ``…``, spaces around ``=``), ~5%
forgeries (a changed number or unit, a swapped service or alert name, a negation added or
dropped). Every matcher sees the same bindings. Prints bindings/second for:

  (a)  ours: ``match_excerpt`` (normalised ref texts cached as in a real session; also a
       cold-cache figure) and the full ``check_citations`` path;
  (b)  a difflib matcher: ``SequenceMatcher`` partial ratio (window at each matching block,
       best ``ratio()``) over the normalised texts, threshold 0.90;
  (c)  the floor: NFKC + case-fold + whitespace, then ``in``;

the ratios (docs/design.md §11: ours >= 20x difflib, within 3x of the floor) and, for each,
how many forged bindings passed and how many true ones were rejected. The three matchers are
timed in CPU time (``time.process_time``), chunk by chunk in turn (fast ones best of 5), so
the ratios hold on a busy machine.
"warm" has each ref's normalisation cached (as every citation after the first of a ref in a
session); "every ref cold" clears the caches before each binding (the worst case).
No assertions.

    .venv/bin/python bench/gatekeeper.py [--bindings 5000] [--seed 7]
"""

from __future__ import annotations

import argparse
import difflib
import random
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

# _common first: it puts the repository root on sys.path for ``core``.
import _common  # noqa: F401

from core.contracts import (
    Claim,
    EvidenceBinding,
    ExecutorOutput,
    Invocation,
)
from core.gatekeeper import GATEKEEPER_VERSION, check_citations, clear_caches, match_excerpt
from core.language.text import normalize_text
from core.tools.spec import RAW_PATH_PREFIXES, extract_evidence_refs

SERVICES = ("order-service", "payment-service", "user-service", "inventory-service",
            "gateway-service", "notification-service", "search-service", "billing-service")
ALERTS = ("HighCPUUsage", "HighMemoryUsage", "SlowResponse", "HighDiskUsage", "HighErrorRate",
          "KubePodCrashLooping")
ENDPOINTS = ("/api/v1/users/profile", "/api/v1/users/orders", "/api/v1/orders/create",
             "/api/v1/payments/confirm", "/api/v1/inventory/reserve")
RUNBOOK_SENTENCES = (
    "Heap above 85% for more than 10 minutes means the JVM is close to its limit.",
    "Check GC logs, a heap dump and object allocation before concluding there is a leak.",
    "A pool with active=50/50 and waiting threads is exhausted; look for slow queries first.",
    "Do not restart the pod before capturing a thread dump: the evidence is lost on restart.",
    "连接池耗尽时，先确认是否存在慢查询或未释放的连接，再考虑扩容。",
    "内存使用率持续高于 85% 且 Full GC 频繁时，需要检查堆转储和对象分配统计。",
    "P99 latency above 3s on a single endpoint usually points to a downstream dependency.",
    "If the disk on /data is above 85%, rotate logs and check the log-collector retention.",
)


@dataclass(frozen=True)
class Sample:
    """One binding: the ref it cites, the excerpt, and whether the excerpt is a true quote."""

    ref: str
    excerpt: str
    true: bool
    kind: str


# ---------------------------------------------------------------- ref texts


def _alert(rng: random.Random) -> tuple[str, dict[str, object]]:
    service, alert = rng.choice(SERVICES), rng.choice(ALERTS)
    current = rng.randint(81, 99)
    entry: dict[str, object] = {
        "alert_name": alert, "state": "firing", "service": service, "current": f"{current}%",
        "threshold": f"{rng.choice((80, 85, 90))}%", "duration": f"{rng.randint(5, 45)}m",
        "pod": f"pod-{service}-{rng.randrange(16**9):09x}-x2k4m", "namespace": "production", "details": []}
    if alert == "HighMemoryUsage":
        entry["details"] = [f"JVM heap {rng.randint(30, 39) / 10}GB/4GB"]
    if alert == "SlowResponse":
        entry["details"] = [f"P99 latency {rng.randint(31, 60) / 10}s on {rng.choice(ENDPOINTS)}"]
    return "query_metrics", entry


def _log(rng: random.Random) -> tuple[str, dict[str, object]]:
    service = rng.choice(SERVICES)
    stamp = f"2026-07-08 11:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    templates = (
        ("WARN", f"内存使用率过高: {rng.randint(850, 990) / 10}%, "
                 f"JVM堆内存: {rng.randint(30, 39) / 10}GB/4GB, GC次数: {rng.randint(50, 200)}"),
        ("ERROR", "HikariPool-1 - Connection is not available, request timed out after 30000ms"),
        ("WARN", f"HikariCP pool stats: active=50/50, idle=0, waiting={rng.randint(5, 40)}"),
        ("WARN", f"Slow request: GET {rng.choice(ENDPOINTS)} took {rng.randint(3100, 5000)}ms "
                 "(threshold 3000ms)"),
        ("WARN", f"Full GC 频繁: 10分钟内 {rng.randint(5, 20)} 次 Full GC, 平均耗时 {rng.randint(300, 900)}ms"),
        ("ERROR", f"Redis command timed out after {rng.randint(1, 5) * 1000}ms, host=redis-cluster-01:6379"),
        ("ERROR", f"数据库连接未释放, 连接池无可用连接, 等待线程数: {rng.randint(5, 40)}"),
        ("WARN", f"Message backlog on order-process-queue: {rng.randint(1000, 20000)} messages not consumed"),
    )
    level, message = rng.choice(templates)
    return "query_logs", {"timestamp": stamp, "level": level, "service": service, "message": message}


def _block(rng: random.Random) -> tuple[str, dict[str, object]]:
    sentences = rng.sample(RUNBOOK_SENTENCES, k=rng.randint(3, 6))
    title = rng.choice(("High memory usage", "Connection pool exhaustion", "Slow response"))
    return "lookup_knowledge", {"title": title, "source": "runbooks/x.md", "content": " ".join(sentences)}


@dataclass(frozen=True)
class RefEntry:
    """One tool-output entry and the ref text the recorder's recipe makes of it."""

    tool_name: str
    output: dict[str, object]
    text: str


def make_refs(rng: random.Random, count: int) -> list[RefEntry]:
    """Real-looking tool outputs of one entry each, and their ref texts (the recorder's recipe)."""
    makers = (_alert, _log, _log, _block)
    refs = []
    for _ in range(count):
        tool_name, entry = rng.choice(makers)(rng)
        output = {"success": True, "total": 1, RAW_PATH_PREFIXES[tool_name][0].removeprefix("$."): [entry]}
        (ref,) = extract_evidence_refs(tool_name, output).evidence_refs
        refs.append(RefEntry(tool_name, output, ref.text))
    return refs


# ---------------------------------------------------------------- excerpts


def true_quote(rng: random.Random, ref: str) -> str:
    """A contiguous run of the ref's comma-separated segments (or the whole ref)."""
    if rng.random() < 0.2 or ", " not in ref:
        return ref
    separator = ", " if "; " not in ref else rng.choice((", ", "; "))
    segments = ref.split(separator)
    start = rng.randrange(len(segments))
    end = rng.randint(start + 1, min(len(segments), start + 3))
    quote = separator.join(segments[start:end])
    return quote if len(quote) >= 12 else ref


_DRIFTS: tuple[Callable[[random.Random, str], str], ...] = (
    lambda rng, q: q.upper() if rng.random() < 0.5 else q.lower(),
    lambda rng, q: q.replace(", ", ",   ").replace(" ", "  ", 2),
    lambda rng, q: q.replace(",", "，").replace(":", "：").replace("%", "％"),
    lambda rng, q: q.replace("[", "【").replace("]", "】"),
    lambda rng, q: _zero_width_space(q),
    lambda rng, q: q.replace("=", " = "),
    lambda rng, q: f"  {q}\n ",
    lambda rng, q: _truncate(q),
)


def _zero_width_space(quote: str) -> str:
    """A zero-width space at the break nearest the middle that is not inside a number: copied
    text carries them between words, and one between the digits of a number (``85\u200b%``,
    ``ae54e1\u200b9e5``) is a forgery by the gatekeeper's rules (gk-5: ``invisible``), not drift."""
    breaks = [i for i in range(1, len(quote)) if not _inside_number(quote[i - 1], quote[i])]
    middle = min(breaks, key=lambda i: abs(i - len(quote) // 2), default=0)
    return quote[:middle] + "\u200b" + quote[middle:]


def _inside_number(before: str, after: str) -> bool:
    """Whether a break between ``before`` and ``after`` falls inside a number (the rule of
    ``core.language.invisible.hidden_in_numbers``: two token characters, one a digit)."""
    token = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.%"
    return before in token and after in token and (before.isdigit() or after.isdigit())


def _truncate(quote: str) -> str:
    """The first three and last three words, or one more so that the kept tail starts with a
    word: an ellipsis may not bind the head's last label to a number (gk-3 ``labels``)."""
    words = quote.split(" ")
    if len(words) < 7:
        return quote + "…"
    tail = 3 if not words[-3][:1].isdigit() else 4
    return " ".join(words[:3]) + " … " + " ".join(words[-tail:])


def _forge(rng: random.Random, quote: str) -> str | None:
    """A changed fact in a true quote, or None if this quote offers none of the chosen kind."""
    digits = [i for i, c in enumerate(quote) if c.isdigit() and (i == 0 or not quote[i - 1].isalpha())]
    choices: list[Callable[[], str | None]] = [
        lambda: (lambda i: quote[:i] + str((int(quote[i]) + rng.randint(1, 8)) % 10) + quote[i + 1:])(
            rng.choice(digits)) if digits else None,
        lambda: quote.replace("GB", "MB", 1) if "GB" in quote
        else quote.replace("ms", "s", 1) if "ms" in quote else None,
        lambda: next((quote.replace(s, rng.choice([o for o in SERVICES if o != s]), 1)
                      for s in SERVICES if s in quote), None),
        lambda: next((quote.replace(a, rng.choice([o for o in ALERTS if o != a]), 1)
                      for a in ALERTS if a in quote), None),
        lambda: quote.replace(" is not ", " is ", 1) if " is not " in quote
        else quote.replace("未", "已", 1) if "未" in quote else None,
        lambda: quote.replace(" firing", " not firing", 1) if " firing" in quote else None,
    ]
    rng.shuffle(choices)
    for choice in choices:
        forged = choice()
        if forged and forged != quote:
            return forged
    return None


def make_corpus(rng: random.Random, refs: list[str], count: int) -> list[Sample]:
    samples: list[Sample] = []
    while len(samples) < count:
        ref = rng.choice(refs)
        quote = true_quote(rng, ref)
        roll = rng.random()
        if roll < 0.80:
            samples.append(Sample(ref, quote, True, "exact"))
        elif roll < 0.95:
            samples.append(Sample(ref, rng.choice(_DRIFTS)(rng, quote), True, "drift"))
        else:
            forged = _forge(rng, quote)
            if forged is not None:
                samples.append(Sample(ref, forged, False, "forged"))
    return samples


# ---------------------------------------------------------------- matchers


def floor_normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def floor_match(excerpt: str, ref: str) -> bool:
    """The floor: a normalised substring check and nothing else."""
    return floor_normalize(excerpt) in floor_normalize(ref)


def difflib_match(excerpt: str, ref: str, threshold: float = 0.90) -> bool:
    """Partial ratio with difflib: best ``ratio()`` of the excerpt against a ref window placed
    at each matching block (the classic pure-Python fuzzy matcher)."""
    needle, haystack = normalize_text(excerpt), normalize_text(ref)
    if not needle:
        return True
    matcher = difflib.SequenceMatcher(None, needle, haystack, autojunk=False)
    best = 0.0
    for block in matcher.get_matching_blocks():
        start = max(0, block.b - block.a)
        window = haystack[start:start + len(needle)]
        best = max(best, difflib.SequenceMatcher(None, needle, window, autojunk=False).ratio())
        if best >= 0.995:
            break
    return best >= threshold


def ours_match(excerpt: str, ref: str) -> bool:
    """Ours: a faithful quote (one too short or generic to count is LOW_CONFID, not forged)."""
    return match_excerpt(excerpt, ref).ok


# ---------------------------------------------------------------- measuring


@dataclass
class Figures:
    name: str
    seconds: float
    count: int
    forged_passed: int
    true_rejected: int

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds else float("inf")


def _verdicts(matcher: Callable[[str, str], bool], samples: list[Sample],
              before_each: Callable[[], None] | None = None) -> tuple[float, list[bool]]:
    verdicts: list[bool] = []
    started = time.process_time()
    for sample in samples:
        if before_each is not None:
            before_each()
        verdicts.append(matcher(sample.excerpt, sample.ref))
    return time.process_time() - started, verdicts


def _figures(name: str, seconds: float, samples: list[Sample], verdicts: list[bool]) -> Figures:
    forged_passed = sum(1 for s, ok in zip(samples, verdicts, strict=True) if ok and not s.true)
    true_rejected = sum(1 for s, ok in zip(samples, verdicts, strict=True) if not ok and s.true)
    return Figures(name, seconds, len(samples), forged_passed, true_rejected)


def measure_interleaved(matchers: dict[str, tuple[Callable[[str, str], bool], int]],
                        samples: list[Sample], chunk: int = 100) -> list[Figures]:
    """Time every matcher chunk by chunk, in turn, so a change in machine load hits them all
    alike; a fast matcher is repeated ``repeats`` times per chunk and its best time kept."""
    seconds = dict.fromkeys(matchers, 0.0)
    verdicts: dict[str, list[bool]] = {name: [] for name in matchers}
    for offset in range(0, len(samples), chunk):
        part = samples[offset:offset + chunk]
        for name, (matcher, repeats) in matchers.items():
            runs = [_verdicts(matcher, part) for _ in range(repeats)]
            seconds[name] += min(run[0] for run in runs)
            verdicts[name] += runs[0][1]
    return [_figures(name, seconds[name], samples, verdicts[name]) for name in matchers]


def measure_check_citations(samples: list[Sample], refs: list[RefEntry]) -> Figures:
    """The whole gatekeeper path: one session, one invocation per ref (its real output; the
    refs are recomputed from it and compared), one binding each."""
    by_text = {ref.text: ref for ref in refs}
    ref_ids: dict[str, int] = {}
    invocations: list[Invocation] = []
    for sample in samples:
        if sample.ref not in ref_ids:
            ref_ids[sample.ref] = 1000 + len(ref_ids)
            entry = by_text[sample.ref]
            invocations.append(Invocation(
                invocation_id=ref_ids[sample.ref], session_id="bench", tool_name=entry.tool_name,
                output=entry.output, retrieval_details=extract_evidence_refs(entry.tool_name, entry.output)))
    tools = {ref.text: ref.tool_name for ref in refs}
    claims = [Claim(claim_id=f"c{i}", claim_text="bench", evidence_bindings=[EvidenceBinding(
        tool_name=tools[s.ref], source_invocation_id=ref_ids[s.ref],
        raw_path=f"{RAW_PATH_PREFIXES[tools[s.ref]][0]}[0]", evidence_excerpt=s.excerpt)])
        for i, s in enumerate(samples)]
    output = ExecutorOutput(claims=claims)
    started = time.process_time()
    result = check_citations(session_id="bench", invocations=invocations, executor_output=output)
    seconds = time.process_time() - started
    checked = list(zip(samples, result.checked_bindings, strict=True))  # one result per binding
    forged_passed = sum(1 for s, b in checked if b.status == "pass" and not s.true)
    # A true binding graded low_confid (too short or generic) is not a rejection.
    true_rejected = sum(1 for s, b in checked if b.severity == "reject" and s.true)
    return Figures("(a) ours, full check_citations", seconds, len(samples), forged_passed, true_rejected)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=5000)
    parser.add_argument("--refs", type=int, default=400, help="distinct ref texts")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    refs = make_refs(rng, args.refs)
    samples = make_corpus(rng, [ref.text for ref in refs], args.bindings)
    kinds = {kind: sum(1 for s in samples if s.kind == kind) for kind in ("exact", "drift", "forged")}
    print(f"gatekeeper {GATEKEEPER_VERSION}")
    print(f"corpus: {len(samples)} bindings over {len(refs)} ref texts "
          f"(exact {kinds['exact']}, drift {kinds['drift']}, forged {kinds['forged']})")

    clear_caches()
    ours, difflib_figures, floor = measure_interleaved({
        "(a) ours, match_excerpt (warm)": (ours_match, 5),
        "(b) difflib partial ratio": (difflib_match, 1),
        "(c) floor: normalised `in`": (floor_match, 5),
    }, samples)
    cold_seconds, cold_verdicts = _verdicts(ours_match, samples, clear_caches)
    cold = _figures("(a) ours, every ref cold", cold_seconds, samples, cold_verdicts)
    full = measure_check_citations(samples, refs)
    print(f"\n{'matcher':36} {'bindings/s':>12} {'seconds':>8} {'forged passed':>14} {'true rejected':>14}")
    for figures in (ours, cold, full, difflib_figures, floor):
        print(f"{figures.name:36} {figures.per_second:12,.0f} {figures.seconds:8.2f} "
              f"{figures.forged_passed:>7}/{kinds['forged']:<6} "
              f"{figures.true_rejected:>7}/{kinds['exact'] + kinds['drift']}")
    too_short = sum(1 for sample in samples if sample.true and match_excerpt(sample.excerpt, sample.ref).too_short)
    print(f"ours: {too_short} true bindings are too short or generic to count "
          f"(graded LOW_CONFID excerpt_too_short, not rejected)")
    print(f"\nours vs difflib: {ours.per_second / difflib_figures.per_second:.1f}x faster (aim >= 20x)")
    print(f"floor vs ours:   {floor.per_second / ours.per_second:.2f}x (aim <= 3x); "
          f"cold cache {floor.per_second / cold.per_second:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
