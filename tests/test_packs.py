"""Scenario packs: the demo pack holds the acceptance matrix's world (docs/design.md §10);
broken packs fail with one clear line."""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
from pathlib import Path

import pytest
import yaml

from core.errors import PackError
from core.packs import Pack, list_packs, load_pack, resolve_pack, validate_pack

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO_ROOT / "mockdata" / "demo"


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    """A private copy of the demo pack to break."""
    target = tmp_path / "packs" / "broken"
    shutil.copytree(DEMO_DIR, target)
    return target


def _error(path: Path) -> PackError:
    with pytest.raises(PackError) as caught:
        load_pack(str(path))
    return caught.value


# ---------------------------------------------------------------- the demo pack


def test_demo_pack_clock_and_alerts(demo_pack: Pack) -> None:
    assert demo_pack.name == "demo"
    assert demo_pack.now.isoformat() == "2026-07-08T11:20:00+08:00"
    by_name = {alert.alert_name: alert for alert in demo_pack.alerts}
    assert set(by_name) == {"HighCPUUsage", "HighMemoryUsage", "SlowResponse"}
    assert all(a.state == "firing" and a.namespace == "production" for a in demo_pack.alerts)
    cpu, memory, slow = by_name["HighCPUUsage"], by_name["HighMemoryUsage"], by_name["SlowResponse"]
    assert (cpu.service, cpu.current, cpu.threshold, cpu.duration, cpu.pod) == (
        "payment-service", "92%", "80%", "25m", "pod-payment-service-7d8f9c6b5-x2k4m")
    assert (memory.service, memory.current, memory.threshold, memory.duration, memory.pod) == (
        "order-service", "91%", "85%", "15m", "pod-order-service-5c7d8e9f1-m3n2p")
    assert "JVM heap 3.8GB/4GB" in memory.details
    assert (slow.service, slow.current, slow.threshold, slow.duration) == (
        "user-service", "P99 4.2s", "3s", "10m")
    assert any("/api/v1/users/profile" in d for d in slow.details)
    assert any("/api/v1/users/orders" in d for d in slow.details)


def test_demo_pack_series(demo_pack: Pack) -> None:
    def values(service: str) -> list[float]:
        (series,) = [s for s in demo_pack.series.values() if s.service == service]
        return [point.value for point in series.points]

    assert values("order-service") == [86.2, 87.4, 88.6, 89.8, 91.0]
    assert values("payment-service") == [86.0, 87.5, 89.0, 90.5, 92.0]
    latency = values("user-service")
    assert latency[-1] == 4.2 and latency == sorted(latency)


def _messages(pack: Pack, service: str) -> str:
    return "\n".join(e.message for e in pack.logs if e.service == service)


def test_demo_pack_logs_hold_every_seed_item(demo_pack: Pack) -> None:
    payment, order = _messages(demo_pack, "payment-service"), _messages(demo_pack, "order-service")
    user = _messages(demo_pack, "user-service")
    for percent in ("92.0%", "90.5%", "89.0%", "87.5%", "86.0%"):
        assert f"CPU使用率过高: {percent}" in payment
    assert "CPU使用率过高: 92.0%, 活跃线程数: 245" in payment
    assert "内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128" in order
    for percent in ("89.8%", "88.6%", "87.4%", "86.2%"):
        assert f"内存使用率过高: {percent}" in order
    assert "Full GC 频繁: 10分钟内 15 次 Full GC, 平均耗时 850ms" in order
    assert order.count("HikariPool-1 - Connection is not available, request timed out after 30000ms") >= 2
    assert "HikariCP pool stats: active=50/50, idle=0, waiting=32" in order
    assert "java.lang.OutOfMemoryError: Java heap space" in order
    assert "order-process-queue" in order and "15823" in order
    for endpoint, millis in (("profile", 4200), ("profile", 3900), ("profile", 3600),
                             ("orders", 4050), ("orders", 3750)):
        assert f"/api/v1/users/{endpoint} 响应时间 {millis}ms" in user
    assert "HTTP 500" in user and "query timeout" in user
    assert "redis-cluster-01:6379" in payment
    mysql = _messages(demo_pack, "mysql")
    assert "3.2s" in mysql and "2.8s" in mysql and "full scan" in mysql and "4.5s" in mysql
    assert "lock wait" in mysql
    disk = _messages(demo_pack, "log-collector")
    assert all(f"/data 使用率 {p}%" in disk for p in (85, 87, 89))
    kube = _messages(demo_pack, "kubernetes")
    assert "pod-order-service-5c7d8e9f1-m3n2p" in kube and "OOMKilled" in kube
    assert "exit code 137" in kube and "重启次数 3" in kube
    assert "oom-kill" in _messages(demo_pack, "kernel")


def test_demo_pack_timestamps_follow_the_clock(demo_pack: Pack) -> None:
    from datetime import datetime, timedelta

    for entry in demo_pack.logs:
        moment = datetime.fromisoformat(entry.timestamp)
        assert demo_pack.now - timedelta(minutes=30) <= moment < demo_pack.now, entry


def test_demo_pack_runbooks_and_questions(demo_pack: Pack) -> None:
    sources = {r.source for r in demo_pack.runbooks}
    assert sources == {f"runbooks/{name}.md" for name in (
        "high-cpu", "high-memory", "high-disk", "service-unavailable", "slow-response",
        "connection-pool-exhaustion")}
    for runbook in demo_pack.runbooks:
        headings = " ".join(section.title for section in runbook.sections)
        for part in ("含义", "检查项", "常见原因", "缓解"):
            assert part in headings, (runbook.source, part)
    assert "确认 inventory-service 是否存在 HikariCP 连接池耗尽" in demo_pack.example_questions
    assert len(demo_pack.example_questions) >= 8


def test_demo_pack_services_and_no_placeholder_anywhere(demo_pack: Pack) -> None:
    assert demo_pack.services == ["payment-service", "order-service", "user-service",
                                  "inventory-service", "log-collector", "kernel", "kubernetes",
                                  "mysql"]
    for path in DEMO_DIR.rglob("*"):
        if path.is_file():
            assert "generic-service" not in path.read_text(encoding="utf-8"), path


# ---------------------------------------------------------------- locating and caching


def test_resolve_by_name_or_path_and_list(pack_copy: Path) -> None:
    packs_dir = pack_copy.parent
    assert resolve_pack("broken", packs_dir) == pack_copy.resolve()
    assert resolve_pack(str(pack_copy)) == pack_copy.resolve()
    assert list_packs(packs_dir)[0][0] == "broken"
    with pytest.raises(PackError, match=r"pack not found: 'nope'.*broken"):
        resolve_pack("nope", packs_dir)
    (packs_dir / "unfinished").mkdir()
    (packs_dir / "unfinished" / "pack.yaml").write_text("now: soon\n", encoding="utf-8")
    assert list_packs(packs_dir)[1][0] == "unfinished"
    assert list_packs(packs_dir)[1][1].startswith("(invalid: pack.yaml: now: Input should be a valid datetime")


def _pack_named(folder: Path, name: str, description: str) -> Path:
    target = folder / name
    shutil.copytree(DEMO_DIR, target)
    meta = yaml.safe_load((target / "pack.yaml").read_text(encoding="utf-8"))
    meta.update(name=name, description=description)
    (target / "pack.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")
    return target


def test_packs_dir_adds_packs_and_overrides_built_in_ones(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from core.settings import DEFAULT_PACKS_DIR, get_settings

    assert resolve_pack("demo") == (DEFAULT_PACKS_DIR / "demo").resolve()
    first, second = tmp_path / "first", tmp_path / "second"
    override = _pack_named(first, "demo", "my own demo")
    mine = _pack_named(first, "mine", "first mine")
    _pack_named(second, "mine", "second mine")
    extra = _pack_named(second, "extra", "only in second")
    monkeypatch.setenv("SUPERBIZ_PACKS_DIR", os.pathsep.join([str(first), "", str(second)]))
    get_settings.cache_clear()

    assert get_settings().pack_dirs() == [first, second, DEFAULT_PACKS_DIR, get_settings().user_packs_path()]
    assert resolve_pack("demo") == override.resolve()  # the earlier folder wins
    assert resolve_pack("mine") == mine.resolve()
    assert resolve_pack("extra") == extra.resolve()
    assert load_pack("demo").description == "my own demo"
    assert dict(list_packs()) == {"demo": "my own demo", "extra": "only in second",
                                  "mine": "first mine"}
    with pytest.raises(PackError, match=rf"pack not found: 'nope'.*demo, extra, mine.*{re.escape(str(first))}"):
        resolve_pack("nope")


def test_a_loaded_pack_survives_pickling(demo_pack: Pack) -> None:
    # Streamlit's cache_data pickles what it caches.
    copy = pickle.loads(pickle.dumps(demo_pack))
    assert copy.model_dump() == demo_pack.model_dump() and copy.services == demo_pack.services


def test_load_is_cached_until_a_file_changes(pack_copy: Path) -> None:
    first = load_pack(str(pack_copy))
    assert load_pack(str(pack_copy)) is first
    alerts = pack_copy / "alerts.yaml"
    data = yaml.safe_load(alerts.read_text(encoding="utf-8"))
    alerts.write_text(yaml.safe_dump(data[:1], allow_unicode=True), encoding="utf-8")
    stat = alerts.stat()
    os.utime(alerts, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    reloaded = load_pack(str(pack_copy))
    assert reloaded is not first and len(reloaded.alerts) == 1


def test_logs_yaml_is_read_like_jsonl(pack_copy: Path) -> None:
    jsonl = pack_copy / "logs.jsonl"
    entries = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    jsonl.unlink()
    (pack_copy / "logs.yaml").write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")
    assert [e.model_dump() for e in load_pack(str(pack_copy)).logs] == [
        e.model_dump() for e in load_pack("demo").logs]


# ---------------------------------------------------------------- validation errors


def _assert_one_line(error: PackError) -> None:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text


def test_bad_yaml_names_file_and_line(pack_copy: Path) -> None:
    (pack_copy / "alerts.yaml").write_text("- alert_name: X\n  service: [unclosed\n", encoding="utf-8")
    error = _error(pack_copy)
    assert error.file == "alerts.yaml" and error.entry == "line 3"
    assert str(error).startswith("alerts.yaml: line 3: invalid YAML")
    _assert_one_line(error)


def test_missing_field_names_entry_and_field(pack_copy: Path) -> None:
    path = pack_copy / "alerts.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data[2]["service"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    error = _error(pack_copy)
    assert (error.file, error.entry, error.field) == ("alerts.yaml", "alerts[2]", "service")
    assert str(error) == "alerts.yaml: alerts[2]: service: Field required"


def test_wrong_type_names_entry_and_field(pack_copy: Path) -> None:
    path = pack_copy / "series.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    name = next(iter(data))
    data[name]["points"][1]["value"] = "high"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    error = _error(pack_copy)
    assert (error.file, error.entry, error.field) == ("series.yaml", f"series[{name!r}]", "points.1.value")
    _assert_one_line(error)


def test_bad_now_names_the_field(pack_copy: Path) -> None:
    path = pack_copy / "pack.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        '"2026-07-08T11:20:00+08:00"', '"yesterday at noon"'), encoding="utf-8")
    error = _error(pack_copy)
    assert (error.file, error.field) == ("pack.yaml", "now")


def test_bad_log_line_names_the_line_number(pack_copy: Path) -> None:
    path = pack_copy / "logs.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[16] = lines[16][:-5]  # line 17: truncated JSON
    entry = json.loads(lines[19])
    del entry["message"]
    lines[19] = json.dumps(entry)  # line 20: no message
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = validate_pack(str(pack_copy))
    located = [(p.file, p.entry, p.field) for p in problems]
    assert located == [("logs.jsonl", "line 17", None), ("logs.jsonl", "line 20", "message")]
    assert str(problems[0]).startswith("logs.jsonl: line 17: invalid JSON")


def test_duplicate_series_name_is_an_error(pack_copy: Path) -> None:
    path = pack_copy / "series.yaml"
    text = path.read_text(encoding="utf-8")
    first = text.index("order-service/memory_usage_percent:")
    block = text[first:text.index("\n\n", first)]
    path.write_text(text + "\n" + block + "\n", encoding="utf-8")
    error = _error(pack_copy)
    assert error.file == "series.yaml" and "duplicate key 'order-service/memory_usage_percent'" in str(error)


def test_problems_of_several_files_are_listed_together(pack_copy: Path) -> None:
    (pack_copy / "alerts.yaml").write_text("- alert_name: X\n", encoding="utf-8")
    (pack_copy / "logs.yaml").write_text("[]\n", encoding="utf-8")
    problems = [str(p) for p in validate_pack(str(pack_copy))]
    assert "alerts.yaml: alerts[0]: service: Field required" in problems
    assert any(p.startswith("logs.jsonl: both logs.jsonl and logs.yaml exist") for p in problems)


def test_every_data_file_is_optional_and_the_clock_defaults_to_the_data(pack_copy: Path) -> None:
    """A pack is any part of a world: without alerts, series, logs or runbooks it holds the
    rest; without ``name`` it is named by its folder; without ``now`` its clock is the newest
    moment of its data (a recording ends where its data does)."""
    for name in ("alerts.yaml", "logs.jsonl"):
        (pack_copy / name).unlink()
    shutil.rmtree(pack_copy / "runbooks")
    (pack_copy / "pack.yaml").write_text("description: metrics only\n", encoding="utf-8")
    assert validate_pack(str(pack_copy)) == []
    pack = load_pack(str(pack_copy))
    assert (pack.name, pack.alerts, pack.logs, pack.runbooks) == ("broken", [], [], [])
    newest = max(point.ts for series in pack.series.values() for point in series.points)
    assert pack.series and pack.now.isoformat() == newest.replace("Z", "+00:00")


def test_a_pack_holding_no_data_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text("name: empty\n", encoding="utf-8")
    (problem,) = validate_pack(str(tmp_path))
    assert str(problem).startswith("pack.yaml: the pack holds no data: add alerts.yaml, series.yaml")
    with pytest.raises(PackError, match="holds no data"):
        load_pack(str(tmp_path))


def test_empty_runbooks_folder_is_valid(pack_copy: Path) -> None:
    for path in (pack_copy / "runbooks").iterdir():
        path.unlink()
    assert validate_pack(str(pack_copy)) == []
    assert load_pack(str(pack_copy)).runbooks == []


def test_markdown_front_matter_fences_and_intro(pack_copy: Path) -> None:
    (pack_copy / "runbooks" / "extra").mkdir()
    (pack_copy / "runbooks" / "extra" / "note.md").write_text(
        "---\ntitle: Front Title\nweight: 3\n---\n\nIntro text.\n\n## Check\n\n```bash\n"
        "# not a heading\nkubectl get pods\n```\n\n### Deeper\n\nstays in Check\n\n## Empty\n",
        encoding="utf-8")
    runbook = next(r for r in load_pack(str(pack_copy)).runbooks if r.source == "runbooks/extra/note.md")
    assert runbook.title == "Front Title"
    assert [s.title for s in runbook.sections] == ["Front Title", "Check"]
    assert "# not a heading" in runbook.sections[1].content
    assert "stays in Check" in runbook.sections[1].content
