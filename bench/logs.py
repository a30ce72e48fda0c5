"""Benchmark: ``query_logs`` on a million log lines, against a plain linear scan in the same run.

Generates a temporary pack (the demo's alerts, series and runbooks; ``--lines`` log lines over
the 24 hours before the pack's ``now``: ~40 services, INFO/DEBUG/WARN/ERROR, Chinese and
English, every kind of line the demo has — CPU, memory, Full GC, HikariCP, slow requests,
HTTP 500, Redis, MQ, MySQL slow queries, disk, OOM, pod restarts — amid ordinary traffic, plus
three lines carrying one rare transaction id). Then measures:

  - pack load (``load_pack``: every line checked and, the file being big, written once into a
    log store cached in a temporary cache folder) next to a bare read of the lines;
  - warm-up (``core.sources.pack.warm_up``: the pack's log store opened);
  - ``run_tool(world, "query_logs", ...)`` latency (the pack's world), median and p95, per kind of query;

and, for the same query kinds, the baseline the brief names: a Python list comprehension over
the raw lines, ``[l for l in lines if q in l.lower()]`` (all of the query's strings must occur),
plus a stricter floor that lower-cases the lines once beforehand. The baseline knows no
synonyms, levels or services: it does less than ``query_logs``, and its hit count is printed
next to ours to show it. Ratios are "how many times faster than the scan". No assertions.

    .venv/bin/python bench/logs.py [--lines 1000000] [--runs 15] [--seed 11] [--figures PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

# _common first: it puts the repository root on sys.path for ``core``.
from _common import REPO_ROOT, Timing, pad, peak_rss_mb, ratio, repeat, timed

from core.packs import load_pack
from core.settings import get_settings
from core.sources.pack import pack_world, warm_up
from core.tools.spec import run_tool

DEMO_PACK = REPO_ROOT / "mockdata" / "demo"
NOW = datetime.fromisoformat("2026-07-08T11:20:00+08:00")
RARE_ID = "txn-7f3a9c21e4"
RARE_COPIES = 3

APP_SERVICES = (
    "order-service", "payment-service", "user-service", "inventory-service", "gateway-service",
    "notification-service", "search-service", "billing-service", "cart-service",
    "catalog-service", "auth-service", "shipping-service", "recommendation-service",
    "review-service", "coupon-service", "risk-service", "report-service", "pricing-service",
    "promotion-service", "account-service", "address-service", "invoice-service",
    "message-service", "media-service", "config-service", "scheduler-service",
    "audit-service", "loyalty-service", "refund-service", "settlement-service",
    "warehouse-service", "logistics-service", "customer-service", "favorite-service",
)
# Services with a JDBC pool. inventory-service is left out on purpose: the acceptance matrix's
# negative case ("HikariCP in inventory-service?") must find nothing, at any scale.
POOL_SERVICES = tuple(s for s in APP_SERVICES[:20] if s != "inventory-service")
ENDPOINTS = ("/api/v1/users/profile", "/api/v1/users/orders", "/api/v1/orders/create",
             "/api/v1/orders/list", "/api/v1/payments/confirm", "/api/v1/inventory/reserve",
             "/api/v1/cart/items", "/api/v1/catalog/search", "/api/v1/coupons/apply",
             "/api/v1/shipping/quote")
TABLES = ("orders", "users", "payments", "inventory", "coupons", "shipments")

Line = tuple[str, str, str, str]  # level, service, message, source
Template = Callable[[random.Random], Line]


def _int(rng: random.Random, low: int, high: int) -> int:
    """A uniform integer in [low, high]; ``randint`` is several times slower per call."""
    return low + int(rng.random() * (high - low + 1))


def _pick(rng: random.Random, choices: tuple[str, ...]) -> str:
    return choices[int(rng.random() * len(choices))]


def _app(rng: random.Random) -> str:
    return _pick(rng, APP_SERVICES)


# Each template draws one line; weights roughly follow a busy production day: mostly traffic.
TEMPLATES: tuple[tuple[int, Template], ...] = (
    (300, lambda r: ("INFO", _app(r), f"{_pick(r, ('GET', 'POST'))} {_pick(r, ENDPOINTS)} 200 "
                     f"{_int(r, 3, 400)}ms", "access")),
    (90, lambda r: ("INFO", _pick(r, ("order-service", "cart-service")), f"订单创建成功: "
                    f"order_id=ORD-{_int(r, 10**7, 10**8)}, 金额 {_int(r, 1, 5000)}.00 元",
                    "application")),
    (70, lambda r: ("INFO", _app(r), "健康检查通过: /actuator/health status=UP", "application")),
    (70, lambda r: ("INFO", "auth-service", f"User u{_int(r, 1, 10**6)} logged in from "
                    f"10.{_int(r, 0, 255)}.{_int(r, 0, 255)}.{_int(r, 1, 254)}",
                    "application")),
    (60, lambda r: ("DEBUG", _app(r), f"Fetched {_int(r, 0, 500)} rows from "
                    f"{_pick(r, TABLES)} in {_int(r, 1, 90)}ms", "application")),
    (50, lambda r: ("INFO", _app(r), f"cache hit ratio {_int(r, 80, 99)}% for prefix "
                    f"{_pick(r, TABLES)}:", "application")),
    (40, lambda r: ("INFO", "scheduler-service", f"Scheduled job reconcile-{_pick(r, TABLES)} "
                    f"finished in {_int(r, 100, 9000)}ms", "application")),
    (30, lambda r: ("WARN", _app(r), f"Retrying request to {_app(r)} (attempt "
                    f"{_int(r, 2, 3)}/3): connection reset by peer", "application")),
    (20, lambda r: ("WARN", _pick(r, APP_SERVICES[:12]), f"CPU使用率过高: "
                    f"{_int(r, 800, 990) / 10}%, 活跃线程数: {_int(r, 150, 260)}",
                    "application")),
    (20, lambda r: ("WARN", _pick(r, APP_SERVICES[:12]), f"内存使用率过高: "
                    f"{_int(r, 850, 990) / 10}%, JVM堆内存: {_int(r, 34, 39) / 10}GB/4GB, "
                    f"GC次数: {_int(r, 60, 200)}", "application")),
    (8, lambda r: ("WARN", _pick(r, APP_SERVICES[:12]), f"Full GC 频繁: 10分钟内 "
                   f"{_int(r, 5, 20)} 次 Full GC, 平均耗时 {_int(r, 300, 900)}ms",
                   "application")),
    (10, lambda r: ("ERROR", _pick(r, POOL_SERVICES), "HikariPool-1 - Connection is not "
                    "available, request timed out after 30000ms", "application")),
    (6, lambda r: ("WARN", _pick(r, POOL_SERVICES), f"HikariCP pool stats: active="
                   f"{_int(r, 40, 50)}/50, idle={_int(r, 0, 5)}, waiting={_int(r, 0, 40)}",
                   "application")),
    (20, lambda r: ("WARN", _app(r), f"慢请求: GET {_pick(r, ENDPOINTS)} 响应时间 "
                    f"{_int(r, 3000, 5000)}ms, 超过阈值 3000ms", "application")),
    (10, lambda r: ("WARN", _app(r), f"Slow request: POST {_pick(r, ENDPOINTS)} took "
                    f"{_int(r, 3000, 6000)}ms (threshold 3000ms)", "application")),
    (8, lambda r: ("ERROR", _app(r), f"HTTP 500 GET {_pick(r, ENDPOINTS)}: 查询超时 "
                   "(query timeout)", "application")),
    (6, lambda r: ("ERROR", _pick(r, APP_SERVICES[:10]), f"Redis timeout: redis-cluster-0"
                   f"{_int(r, 1, 3)}:6379 命令执行超时 (timeout=2000ms)", "application")),
    (4, lambda r: ("WARN", "order-service", f"MQ 消息积压: order-process-queue 当前积压 "
                   f"{_int(r, 1000, 20000)} 条消息", "application")),
    (6, lambda r: ("WARN", "mysql", f"慢查询: SELECT * FROM {_pick(r, TABLES)} WHERE "
                   f"user_id = ? 耗时 {_int(r, 20, 60) / 10}s", "mysql-slow-log")),
    (3, lambda r: ("WARN", "log-collector", f"磁盘使用率过高: /data 使用率 {_int(r, 80, 95)}%",
                   "system")),
    (2, lambda r: ("ERROR", _pick(r, APP_SERVICES[:12]), "java.lang.OutOfMemoryError: Java "
                   "heap space", "application")),
    (1, lambda r: ("ERROR", "kernel", f"Memory cgroup out of memory: oom-kill process "
                   f"{_int(r, 1000, 40000)} (java) in container {_app(r)}", "system")),
    (2, lambda r: ("WARN", "kubernetes", f"Pod production/pod-{_app(r)}-5c7d8e9f1-m3n2p 被重启: "
                   f"OOMKilled (exit code 137), 重启次数 {_int(r, 1, 9)}", "kubernetes-events")),
)


def write_pack(folder: Path, lines: int, seed: int) -> Path:
    """A pack folder with the demo's alerts, series and runbooks and ``lines`` generated logs."""
    for name in ("alerts.yaml", "series.yaml"):
        shutil.copy(DEMO_PACK / name, folder / name)
    shutil.copytree(DEMO_PACK / "runbooks", folder / "runbooks")
    (folder / "pack.yaml").write_text(
        f"name: bench-logs\ndescription: {lines} generated log lines\nnow: \"{NOW.isoformat()}\"\n",
        encoding="utf-8")
    rng = random.Random(seed)
    weights = [weight for weight, _ in TEMPLATES]
    drawn = rng.choices([template for _, template in TEMPLATES], weights=weights, k=lines)
    rare_at = set(rng.sample(range(lines), k=min(RARE_COPIES, lines)))
    start = NOW - timedelta(hours=24)
    step_ms = 24 * 3600 * 1000 / max(lines, 1)
    stamp_of_second: dict[int, str] = {}  # ISO text of each second, formatted once
    path = folder / "logs.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index, template in enumerate(drawn):
            level, service, message, source = template(rng)
            if index in rare_at:
                message = f"Payment confirmed: {RARE_ID} settled by payment-gateway"
            # Mostly in order, with a little jitter as collectors deliver them.
            offset_ms = max(0, int(index * step_ms) + _int(rng, -500, 500))
            second, millis = divmod(offset_ms, 1000)
            prefix = stamp_of_second.get(second)
            if prefix is None:
                prefix = stamp_of_second[second] = (start + timedelta(seconds=second)).strftime(
                    "%Y-%m-%dT%H:%M:%S")
            # No template writes a quote or a backslash, so the JSON is written by hand
            # (json.dumps would double the generation time); load_pack validates every line.
            handle.write(f'{{"timestamp": "{prefix}.{millis:03d}+08:00", "level": "{level}", '
                         f'"service": "{service}", "message": "{message}", '
                         f'"source": "{source}", "host": "node-{_int(rng, 1, 24):02d}"}}\n')
    return path


@dataclass(frozen=True)
class QueryKind:
    """One kind of query: the tool's arguments and the strings the baseline scan looks for."""

    label: str
    arguments: dict[str, Any]
    needles: tuple[str, ...]  # lower case; a line matches the scan when it holds all of them


QUERY_KINDS: tuple[QueryKind, ...] = (
    QueryKind("service", {"service": "payment-service"}, ("payment-service",)),
    QueryKind("service + level", {"service": "order-service", "level": "ERROR"},
              ("order-service", '"level": "error"')),
    QueryKind("topic synonym: HikariCP", {"query": "HikariCP"}, ("hikaricp",)),
    QueryKind("topic synonym: 内存", {"query": "内存"}, ("内存",)),
    QueryKind("topic synonym: 慢请求", {"query": "慢请求"}, ("慢请求",)),
    QueryKind("service + topic", {"service": "order-service", "query": "HikariCP"},
              ("order-service", "hikaricp")),
    QueryKind("service + topic, no hit", {"service": "inventory-service",
                                          "query": "HikariCP 连接池耗尽"},
              ("inventory-service", "hikaricp")),
    QueryKind("common identifier: endpoint", {"query": "/api/v1/users/profile"},
              ("/api/v1/users/profile",)),
    QueryKind("free words", {"query": "connection reset by peer"},
              ("connection reset by peer",)),
    QueryKind("rare identifier", {"query": RARE_ID}, (RARE_ID,)),
    QueryKind("miss", {"query": "redis-cluster-09:6379"}, ("redis-cluster-09:6379",)),
)


def scan_lowering(lines: list[str], needles: tuple[str, ...]) -> list[str]:
    """The baseline as briefed: lower-case every line, keep it if it holds every needle."""
    if len(needles) == 1:
        needle = needles[0]
        return [line for line in lines if needle in line.lower()]
    if len(needles) == 2:  # spelled out: an all() over a generator would slow the baseline
        first, second = needles
        return [line for line in lines if first in (low := line.lower()) and second in low]
    return [line for line in lines if all(n in (low := line.lower()) for n in needles)]


def scan_lowered(lowered: list[str], needles: tuple[str, ...]) -> list[str]:
    """The floor: the same scan over lines lower-cased once beforehand."""
    if len(needles) == 1:
        needle = needles[0]
        return [line for line in lowered if needle in line]
    if len(needles) == 2:
        first, second = needles
        return [line for line in lowered if first in line and second in line]
    return [line for line in lowered if all(n in line for n in needles)]


@dataclass(frozen=True)
class QueryFigures:
    """What one query kind measured."""

    kind: QueryKind
    ours: Timing
    scan: Timing
    floor: Timing
    ours_total: int
    scan_hits: int


def measure_queries(pack: Any, lines: list[str], runs: int, scan_runs: int,
                    floor_runs: int) -> list[QueryFigures]:
    """Every query kind: ``runs`` tool calls, ``scan_runs`` scans and ``floor_runs`` floor scans."""
    lowered = [line.lower() for line in lines]
    world = pack_world(pack)
    return [_measure_query(world, lines, lowered, kind, runs, scan_runs, floor_runs)
            for kind in QUERY_KINDS]


def _measure_query(world: Any, lines: list[str], lowered: list[str], kind: QueryKind, runs: int,
                   scan_runs: int, floor_runs: int) -> QueryFigures:
    ours_total = run_tool(world, "query_logs", kind.arguments)["total"]
    ours = repeat(lambda: run_tool(world, "query_logs", kind.arguments), runs)
    scan = repeat(lambda: scan_lowering(lines, kind.needles), scan_runs)
    floor = repeat(lambda: scan_lowered(lowered, kind.needles), floor_runs)
    hits = len(scan_lowered(lowered, kind.needles))
    return QueryFigures(kind, ours, scan, floor, ours_total, hits)


def report(figures: list[QueryFigures]) -> dict[str, float]:
    """The per-kind table and the plain statement of where we lose, if anywhere; the headline
    figures returned for ``--figures`` (ratios: the baseline's median over ours)."""
    print(f"\n{'query kind':30} {'ours med':>9} {'p95':>8} {'scan med':>9} {'vs scan':>15} "
          f"{'floor med':>10} {'vs floor':>15} {'ours total':>11} {'scan hits':>10}")
    for f in figures:
        print(f"{pad(f.kind.label, 30)} {f.ours.median:7.2f}ms {f.ours.p95:6.2f}ms "
              f"{f.scan.median:7.1f}ms {ratio(f.scan.median, f.ours.median):>15} "
              f"{f.floor.median:8.1f}ms {ratio(f.floor.median, f.ours.median):>15} "
              f"{f.ours_total:>11,} {f.scan_hits:>10,}")
    all_ours = sorted(s for f in figures for s in f.ours.samples_ms)
    print(f"\nquery_logs over all kinds: median {all_ours[len(all_ours) // 2]:.2f} ms, "
          f"p95 {all_ours[max(0, round(0.95 * len(all_ours)) - 1)]:.2f} ms, "
          f"max {all_ours[-1]:.2f} ms")
    baselines: tuple[tuple[str, Callable[[QueryFigures], Timing]], ...] = (
        ("the briefed scan", lambda f: f.scan), ("the floor", lambda f: f.floor))
    for name, baseline in baselines:
        slower = [f.kind.label for f in figures if f.ours.median > baseline(f).median]
        print(f"query_logs is SLOWER than {name} on: {', '.join(slower)}" if slower
              else f"query_logs is faster than {name} on every query kind")
    versus_scan = [f.scan.median / f.ours.median for f in figures]
    versus_floor = [f.floor.median / f.ours.median for f in figures]
    return {"logs.kinds": float(len(figures)), "logs.median_ms": all_ours[len(all_ours) // 2],
            "logs.scan_vs_ours_low": min(versus_scan), "logs.scan_vs_ours_high": max(versus_scan),
            "logs.floor_vs_ours_low": min(versus_floor), "logs.floor_vs_ours_high": max(versus_floor),
            "logs.slower_than_floor": float(sum(1 for value in versus_floor if value < 1))}


def main() -> int:
    """Generate, load, warm up, query, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="generated log lines")
    parser.add_argument("--runs", type=int, default=15, help="query_logs calls per query kind")
    # One run of the briefed scan is ~1 s on a million lines: stable enough, and keeps the
    # whole bench well under two minutes.
    parser.add_argument("--scan-runs", type=int, default=1, help="briefed scans per query kind")
    parser.add_argument("--floor-runs", type=int, default=3, help="floor scans per query kind")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row, with the size)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="superbiz-bench-logs-") as folder:
        # the pack's cached log store goes with the temporary folder, not into ~/.cache
        os.environ["SUPERBIZ_CACHE_DIR"] = str(Path(folder) / "cache")
        get_settings.cache_clear()
        generate_ms, logs_path = timed(lambda: write_pack(Path(folder), args.lines, args.seed))
        size_mb = logs_path.stat().st_size / 2**20
        print(f"generated {args.lines:,} log lines ({size_mb:.0f} MB) in {generate_ms / 1000:.1f} s")
        read_ms, lines = timed(lambda: logs_path.read_text(encoding="utf-8").splitlines())
        load_ms, pack = timed(lambda: load_pack(folder))
        warm_ms, _ = timed(lambda: warm_up(pack))
        print(f"pack load (check + build the cached store) {load_ms / 1000:6.2f} s   "
              f"(bare read of the lines: {read_ms / 1000:.2f} s)")
        print(f"warm-up (warm_up: store opened)            {warm_ms / 1000:6.2f} s   "
              f"({len(pack.services)} services)")
        figures = measure_queries(pack, lines, args.runs, args.scan_runs, args.floor_runs)
        print(f"query_logs via run_tool: {args.runs} runs per kind; scan (`[l for l in lines "
              f"if q in l.lower()]`): {args.scan_runs} run(s); floor (the lines lower-cased "
              f"once): {args.floor_runs} runs")
        kept = report(figures)
        print(f"peak memory: {peak_rss_mb():,.0f} MB")
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, {"logs.lines": float(args.lines), "logs.load_s": load_ms / 1000,
                                     "logs.load_vs_read": load_ms / read_ms, **kept})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
