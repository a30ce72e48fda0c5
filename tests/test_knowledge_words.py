"""Runbooks are looked up by the question's own words and the sections' titles (issue 29, item 6).

A question that names a runbook's subject in its own words -- no lexicon topic, no alert name --
gets that runbook's section cited as its next step; a question about something no runbook is
about gets none. Both languages; on a runbook written here and on real runbooks
(prometheus-operator's, from ../shared/corpora).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.contracts import SessionDocument
from core.packfiles.formats import Runbook, RunbookSection
from core.pipeline import ask
from core.tools.args import LookupKnowledgeArgs
from core.tools.knowledge import build_sections, search_sections

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO_ROOT / "mockdata" / "demo"
CERTIFICATES = """# 证书轮换 (Certificate Rotation)

## 检查项 (What to check)

- 用 openssl 查看证书的 notAfter 时间 (check notAfter with openssl).
- 检查证书签发任务的日志 (look at the issuer job's logs).

## 缓解 (Mitigation)

- 按流程轮换证书。
"""


def _titles(query: str, runbooks: list[Runbook]) -> list[str]:
    result = search_sections(build_sections(runbooks), LookupKnowledgeArgs(query=query))
    return [block.title for block in result.evidence_blocks]


def _runbook_steps(document: SessionDocument) -> list[str]:
    """The runbook sections the answer's next steps cite (their titles, as the action says)."""
    output = document.executor_output
    assert output is not None
    return [action.action_text for action in output.recommended_actions
            if any(binding.tool_name == "lookup_knowledge" for binding in action.evidence_bindings)]


def _demo_with(tmp_path: Path, runbooks: dict[str, str]) -> str:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_DIR, pack)
    for name, text in runbooks.items():
        (pack / "runbooks" / name).write_text(text, encoding="utf-8")
    return str(pack)


def test_a_word_form_of_a_title_word_ranks_its_section_first() -> None:
    runbooks = [
        Runbook(title="Restart procedure", source="runbooks/restart.md", sections=[
            RunbookSection(title="Steps", content="Drain the node, then roll the deployment.")]),
        Runbook(title="Disk cleanup", source="runbooks/disk.md", sections=[
            RunbookSection(title="Steps", content="Remove old logs; a restart is rarely needed.")]),
    ]
    assert _titles("restarting", runbooks)[0] == "Restart procedure / Steps"
    assert _titles("drained", runbooks) == ["Restart procedure / Steps"]  # a word of the text only
    assert _titles("backup schedule", runbooks) == []
    assert _titles("podcast", runbooks) == []  # never a word inside another word


@pytest.mark.parametrize("question", [
    "Is a certificate about to expire on payment-service?",
    "payment-service 的证书快过期了吗？",
])
def test_a_question_naming_a_runbook_in_its_own_words_cites_it(tmp_path: Path, question: str) -> None:
    document = ask(question, pack=_demo_with(tmp_path, {"certificates.md": CERTIFICATES}))
    steps = _runbook_steps(document)
    assert len(steps) == 1 and "证书轮换 (Certificate Rotation) / 检查项 (What to check)" in steps[0]
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"


@pytest.mark.parametrize("question", [
    "Did the nightly backup finish on payment-service?",
    "payment-service 的备份完成了吗？",
])
def test_a_question_about_nothing_in_the_runbooks_cites_none(tmp_path: Path, question: str) -> None:
    document = ask(question, pack=_demo_with(tmp_path, {"certificates.md": CERTIFICATES}))
    assert _runbook_steps(document) == []
    looked_up = [inv for inv in document.invocations if inv.tool_name == "lookup_knowledge"]
    assert all(not inv.output.get("evidence_blocks") for inv in looked_up)


def test_excluded_words_are_never_looked_up(tmp_path: Path) -> None:
    pack = _demo_with(tmp_path, {"certificates.md": CERTIFICATES})
    document = ask("payment-service 有没有超时？不要分析证书", pack=pack)
    queries = [str(inv.arguments.get("query")) for inv in document.invocations
               if inv.tool_name == "lookup_knowledge"]
    assert queries and not any("证书" in query or "certificate" in query for query in queries)
    assert not any("证书" in step for step in _runbook_steps(document))


@pytest.mark.parametrize(("question", "runbook"), [
    ("Why did the job fail on order-service?", "KubeJobFailed / Diagnosis"),
    ("order-service 的 job 为什么失败了？", "KubeJobFailed / Diagnosis"),
    ("Is a client certificate about to expire?", "KubeClientCertificateExpiration / Diagnosis"),
    ("证书快过期了吗？", "KubeClientCertificateExpiration / Diagnosis"),
    ("Why is the order-service persistent volume filling up?", "KubePersistentVolumeFillingUp / Diagnosis"),
])
def test_real_runbooks_are_found_by_the_questions_words(tmp_path: Path, corpora_dir: Path,
                                                        question: str, runbook: str) -> None:
    folder = corpora_dir / "prometheus-operator-runbooks" / "content" / "runbooks" / "kubernetes"
    names = ("KubeJobFailed.md", "KubeClientCertificateExpiration.md", "KubePodNotReady.md",
             "KubePersistentVolumeFillingUp.md", "KubeNodeNotReady.md")
    pack = _demo_with(tmp_path, {name: (folder / name).read_text(encoding="utf-8") for name in names})
    document = ask(question, pack=pack)
    steps = _runbook_steps(document)
    assert len(steps) == 1 and runbook in steps[0]
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
