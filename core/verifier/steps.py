"""Judging the next steps: recommended actions and ``missing_info`` (the always-on step policy).

The seed allows only evidence-gathering actions (只允许证据收集动作，不允许修复动作): look, query,
collect, compare, dump, check, measure -- never a repair: restart, roll back, scale, raise a
limit, delete, kill, fix (重启、回滚、扩容、调大、删除、杀掉、修复 ...). A repair verb counts when it is
an instruction -- at the start of a clause, after 立即 / then / and, or with its object -- not
when it names what to look at ("查看重启前的容器日志", "count restarts", "是否被重启").

- a repair action fails ``verifier.repair_action`` (REJECT: it is forbidden content), and so
  does a repair written as a ``missing_info`` entry ("Restart order-service now");
- an action must follow from the claims or the missing information: every service it names
  is one of theirs (or the question's), every topic it names is one of theirs, and it gathers
  something (``verifier.action_unfounded``, LOW_CONFID);
- a step that mentions an excluded subject is withheld from the answer
  (``verifier.step_withheld``; the verdict is not lowered: a gap is not a finding);
- a ``missing_info`` entry (or an action) that asserts current state or a diagnosis
  ("内存泄漏已确认", "the leak is confirmed", "根因是 …") fails ``verifier.gap_asserts_state``
  (LOW_CONFID): a gap names what is missing, it does not conclude.

Only passed steps reach the answer; a failed one lowers the verdict by its rule's grade.
"""

from __future__ import annotations

import re
from typing import Literal

from core.contracts import ExecutorOutput, Plan, StepResult
from core.language.clauses import content_units
from core.language.lexicon import (
    declared_topics,
    expand_topics,
    services_in,
    topic_mentions,
    topics_in,
)
from core.language.subjects import excluded_mentions, topics_in_scope
from core.language.text import fold, normalize
from core.lazypattern import LazyPattern
from core.verifier.rules import (
    ACTION_UNFOUNDED,
    GAP_ASSERTS_STATE,
    REPAIR_ACTION,
    STEP_WITHHELD,
    most_serious,
)


def _en(words: str) -> str:
    return rf"(?<![a-z\-])(?:{words})(?![a-z])"


# Repair verbs, as instructions, with an object after them. Verbs that are also nouns
# ("restart count", "the increase in memory", "kill events") need an object that is not such a
# noun phrase; Chinese verbs must not be followed by what makes them a noun ("重启前",
# "重启次数", "扩容记录") nor preceded by a passive or a negation ("被重启", "未重启").
_NOUN_FOLLOWERS = (r"logs?|events?|history|counts?|records?|times?|reasons?|causes?|loops?|"
                   r"before|after|of|in|on|at|rate|storm|policy|happened|occurred|was|were|is|are")
_EN_NOUNABLE = re.compile(
    _en(r"restart(?:ing)?|reboot(?:ing)?|roll(?:ing)? ?back|upgrad(?:e|ing)|downgrad(?:e|ing)|"
        r"scal(?:e|ing)(?: up| out| down| in)?|kill(?:ing)?|fail(?:ing)? ?over|migrat(?:e|ing)|"
        r"fix(?:ing)?|patch(?:ing)?|chang(?:e|ing)|increas(?:e|ing)|decreas(?:e|ing)|"
        r"drop(?:ping)?|stop(?:ping)?|repair(?:ing)?|redeploy(?:ing)?|deploy(?:ing)?")
    + rf"(?=\s+(?!(?:{_NOUN_FOLLOWERS})\b)[\w/.$-])")
_EN_PURE = re.compile(
    _en(r"bounce|recycl(?:e|ing)|revert(?:ing)?|rais(?:e|ing)|bump(?:ing)?|enlarg(?:e|ing)|"
        r"doubl(?:e|ing)|boost(?:ing)?|extend(?:ing)?|lower(?:ing)?|reduc(?:e|ing)|"
        r"tun(?:e|ing)|adjust(?:ing)?|modify(?:ing)?|reconfigur(?:e|ing)|delet(?:e|ing)|"
        r"remov(?:e|ing)|purg(?:e|ing)|truncat(?:e|ing)|flush(?:ing)?|wip(?:e|ing)|"
        r"clean(?:ing)? up|clear(?:ing)?|free(?:ing)? up|terminat(?:e|ing)|evict(?:ing)?|"
        r"remediat(?:e|ing)|mitigat(?:e|ing)|resolv(?:e|ing)|disabl(?:e|ing)|"
        r"add(?:ing)? (?:an? )?index(?:es)?|creat(?:e|ing) (?:an? )?index(?:es)?|"
        r"optimi[sz](?:e|ing)|rewrit(?:e|ing)|apply(?:ing)? (?:a |the )?(?:fix|patch)|"
        r"set(?:ting)? (?:the |its |their )?[\w\s'.\-]{1,40}? to(?=\s+\d)")
    + r"(?=\s*[\w/.$-])")
_ZH_REPAIR = re.compile(
    r"(?<![被未否没])(?:重启|重新启动|重新部署|回滚|回退|扩容|缩容|扩展副本|调大|调高|调小|调低|加大|增大|"
    r"提高|提升|增加|降低|减少|修改|调整|删除|删掉|清理|清除|清空|杀掉|杀死|终止|停止|停掉|关闭|禁用|"
    r"修复|修正|升级|降级|下线|摘除|切换|迁移|释放|优化|重建|加索引|添加索引|建索引|扩大|"
    r"调到|调至|调成|改为|改成|设为|设置为|扩到|扩至)"
    r"(?!前|后|次数|记录|原因|事件|历史|日志|时间|情况|过|的|了|与否|是否|状态|趋势|速度|速率|幅度|比例|数)")
# Gathering verbs (what an action may do) in both languages.
_GATHER = re.compile(
    r"查看|检查|确认|核对|核实|复核|收集|采集|导出|抓取|获取|拉取|查询|检索|统计|对比|比较|观察|"
    r"分析|排查|追踪|跟踪|记录|监控|评估|执行 ?explain|dump|抓包|列出|继续|开启.{0,12}dump|按 ?runbook|"
    + _en(r"look|looks|check|checks|query|collect|capture|compare|dump|export|inspect|review|"
          r"read|examine|measure|count|gather|fetch|pull|grep|search|trace|profile|monitor|"
          r"watch|verify|confirm|investigate|analy[sz]e|run explain|take|record|list|"
          r"correlate|follow|find|identify|see|get|obtain|enable heap dumps?|plot|chart"))
# A clause boundary: the next instruction starts after it.
_CLAUSE = re.compile(r"[，,；;。.!?！？\n]|并且|并|然后|再|之后|随后|同时|接着|以及|"
                     + _en(r"and then|then|and|after that|afterwards"))
# A conclusion: a cause or a state stated as found. Words that only state a cause ("root cause
# is", "caused by", 由于, 问题出在 …) conclude on their own; a state word (leak, exhausted, 宕机 …)
# concludes with an assertion (已确认, 说明, "is confirmed") or when stated outright (已耗尽,
# "is leaking", 存在内存泄漏, 已知的泄漏点).
_CAUSE = re.compile(
    r"(?:根因|根本原因|原因)\s*(?:是|为|在于|[:：])|问题(?:出在|在于)|罪魁祸首|归因于|是由于|是因为|由于|所致|"
    r"(?:是|为).{0,20}(?:导致|引起|造成)的|"
    + _en(r"root cause (?:is|was|lies)|root cause\s*:|the (?:problem|issue|culprit) (?:is|was|lies)|"
          r"(?:is|are|was|were)?\s*(?:clearly |definitely |obviously )?caused by|due to|because of|"
          r"results? from|stems? from|is the reason"))
_ASSERTION = re.compile(
    r"已确认|已经确认|确认为|确定为|已证实|证实了|已定位|已找到|就是|说明|表明|证明|意味着|可见|"
    + _en(r"is confirmed|was confirmed|confirmed that|has been confirmed|this means|which means|"
          r"shows? that|indicates? that|proves? that|so there is|therefore"))
_STATE_WORD = re.compile(r"内存泄漏|泄漏|泄露|耗尽|宕机|崩溃|挂了|根因|"
                         + _en(r"memory leak|leak|leaking|exhausted|down|crashed|root cause"))
# A state stated outright, with no assertion word needed.
_DEFINITE_STATE = re.compile(
    r"已(?:经)?(?:被.{0,12}?)?(?:耗尽|宕机|崩溃|泄漏|泄露|满|打满|占满|挂|挂掉|宕|拖垮|压垮)|挂了|宕了|"
    r"(?:存在|有|发生了?|出现了?)(?:内存)?泄[漏露]|(?:已知|确定|确认)的?.{0,6}泄[漏露]|"
    + _en(r"is (?:leaking|exhausted|down|crashed|full|dead)|has (?:leaked|crashed|died)|"
          r"(?:has|have) (?:a )?(?:memory )?leak|there is a (?:memory )?leak|the known (?:memory )?leak|"
          r"(?:memory )?leak (?:is|was) (?:confirmed|found)|leaks memory"))
# A state taken as given by naming its details: the leak's source, point, object.
_PRESUMED = re.compile(
    r"泄[漏露](?:点|源|对象|位置|来源|代码|的(?:对象|位置|来源|根源|代码|原因))|(?:连接池)?耗尽的(?:原因|根源)|"
    + _en(r"(?:source|cause|location|origin|point|culprit) of the (?:memory |connection )?leak|"
          r"the (?:memory )?leak(?:ing)? (?:source|point|object|class|site)|leaking (?:object|class|code)|"
          r"the (?:memory )?leak (?:in|of|keeps|is|has|causes|makes|grows)"))
# ... unless the clause asks whether there is one at all.
_ASKED_STATE = LazyPattern(r"是否|有无|有没有|" + _en(r"whether|if there is|any"))
# Words that keep a clause open: a question, a doubt, or what is missing is not a conclusion.
_HEDGE = re.compile(
    r"是否|能否|有无|有没有|是不是|尚不|尚未|尚无|无法|未能|不能|不确定|不清楚|不明|未知|待确认|待定位|"
    r"疑似|可能|或许|也许|大概|缺少|缺乏|需要|还需|假设|如果|若|"
    + _en(r"whether|if|not (?:yet )?(?:known|confirmed|clear|identified|established|determined|proven)|"
          r"unknown|unclear|unconfirmed|uncertain|may|might|could|possibl[ey]|probabl[ey]|likely|"
          r"suspect(?:ed)?|perhaps|maybe|missing|lack(?:s|ing)?|needs?|needed|is there|are there|"
          r"hypothes[ie]s|to (?:confirm|determine|find out|identify|rule out)"))


# Following the session's runbook checks is evidence gathering about what the question asked.
_RUNBOOK = LazyPattern(r"runbook|playbook|检查项|手册|预案")


def is_repair(text: str) -> str:
    """The repair instruction in ``text`` ('' when there is none)."""
    folded = fold(text)
    for clause in _CLAUSE.split(folded):
        match = _ZH_REPAIR.search(clause) or _EN_NOUNABLE.search(clause) or _EN_PURE.search(clause)
        if match is None:
            continue
        before = clause[:match.start()]
        # "无法判断是否需要调整", "decide whether to restart": a question, not an instruction.
        if _ASKING.search(before):
            continue
        gather = _GATHER.search(clause)
        # "查看重启前的日志", "check whether it was restarted": a gathering verb governs it --
        # unless the repair is a next instruction ("确认后把连接池调大", "看一下然后将其重启").
        if gather is not None and gather.start() < match.start() and not _purpose(clause, match.start()) \
                and not _NEXT_INSTRUCTION.search(clause[gather.end():match.start()]):
            continue
        return match.group().strip()
    return ""


_ASKING = LazyPattern(r"是否|能否|要不要|需不需要|该不该|是不是|" + _en(r"whether|if to|if we should"))
_NEXT_INSTRUCTION = re.compile(r"^\s*后|[把将]")


def _purpose(clause: str, position: int) -> bool:
    """"以修复 …", "to fix …": a repair stated as the purpose is still a repair."""
    before = clause[:position].rstrip()
    return before.endswith(("以", "来", "用于", "to", "立即", "马上", "直接", "after", "before",
                            "then", "先", "后", "再"))


def asserted_state(text: str) -> str:
    """A conclusion stated in a step (``内存泄漏已确认``, "root cause is …"), '' when there is
    none. A clause that asks or doubts (是否, 尚不能确认, "whether", "not known") concludes nothing
    -- unless it takes the state as given and doubts only its details (``内存泄漏点尚未定位``,
    "the source of the memory leak is not identified")."""
    folded = fold(text)
    for clause in re.split(r"[，,；;。!?！？\n]|\.(?!\d)", folded):
        if _PRESUMED.search(clause) and not _ASKED_STATE.search(clause):
            return clause.strip()
        if _HEDGE.search(clause):
            continue
        if _CAUSE.search(clause) or _DEFINITE_STATE.search(clause) \
                or (_ASSERTION.search(clause) and _STATE_WORD.search(clause)):
            return clause.strip()
    return ""


def judge_steps(output: ExecutorOutput, plan: Plan, *, claim_texts: list[str]) -> list[StepResult]:
    """One result per ``missing_info`` entry and recommended action, in output order.

    An action follows from the claims (``claim_texts``: those that were entailed) or the gaps
    when it names only their services and is about their topics (or, naming none of their
    topics, shares what it looks at with them: "Run EXPLAIN on the slow statements" after
    "Execution plans of these statements are missing")."""
    basis = [*claim_texts, *(info.description for info in output.missing_info)]
    basis_units = set().union(*(_objects(text) for text in basis)) | _objects(plan.question)
    services = {s.lower() for text in basis for s in services_in(text)} | {s.lower() for s in plan.services}
    services |= {s.lower() for claim in output.claims for s in claim.subject_services}
    topics = set(expand_topics([*(t for text in basis for t in topics_in(text)),
                                *declared_topics(t for claim in output.claims
                                                 for t in claim.subject_topics)]))
    topics |= topics_in_scope(plan.topics)
    results = [_judge_gap(info.info_id, info.description, plan) for info in output.missing_info]
    results += [_judge_action(action.action_id, action.action_text, action.reason, plan, services,
                              topics, basis_units)
                for action in output.recommended_actions]
    return results


def _without_topics(text: str, known: set[str]) -> str:
    """``text`` with the names of topics outside ``known`` blanked: "查看节点的磁盘使用率" after a
    memory finding shares "使用率" with it only through a topic it is not about."""
    normalized = normalize(text)
    for mention in reversed(topic_mentions(normalized)):
        if mention.topic not in known:
            normalized = normalized[:mention.start] + " " + normalized[mention.end:]
    return normalized


def _objects(text: str) -> set[str]:
    """What a text looks at: its content units without the gathering verbs."""
    return content_units(_GATHER.sub(" ", fold(text)))


def _result(step_id: str, kind: Literal["action", "missing_info"], text: str,
            failures: dict[str, list[str]]) -> StepResult:
    rule = most_serious(set(failures))
    reasons = [reason for values in failures.values() for reason in values]
    return StepResult(step_id=step_id, kind=kind, text=text, passed=rule is None,
                      rule=rule, reasons=reasons or ["evidence gathering that follows from the findings"])


def _withheld(text: str, plan: Plan) -> dict[str, list[str]]:
    """The failures a step starts with: withheld when it mentions an excluded subject."""
    excluded = excluded_mentions(text, plan.exclusions)
    return {STEP_WITHHELD: ["mentions excluded subject(s): " + ", ".join(excluded)]} if excluded else {}


def _judge_gap(info_id: str, text: str, plan: Plan) -> StepResult:
    failures = _withheld(text, plan)
    repair = is_repair(text)
    if repair:
        failures.setdefault(REPAIR_ACTION, []).append(
            f"'{repair}' is a repair; a gap names missing evidence, it does not prescribe a fix")
    stated = asserted_state(text)
    if stated:
        failures.setdefault(GAP_ASSERTS_STATE, []).append(
            f"a gap names what is missing; this one concludes: '{stated}'")
    return _result(info_id, "missing_info", text, failures)


def _judge_action(action_id: str, text: str, reason: str, plan: Plan, services: set[str],
                  topics: set[str], basis_units: set[str]) -> StepResult:
    failures = _withheld(text, plan)
    repair = is_repair(text)
    if repair:
        failures.setdefault(REPAIR_ACTION, []).append(
            f"'{repair}' is a repair; only evidence-gathering actions are allowed")
    repair_in_reason = is_repair(reason)
    if repair_in_reason:
        failures.setdefault(REPAIR_ACTION, []).append(
            f"its reason prescribes a repair ('{repair_in_reason}'); only evidence gathering is allowed")
    stated = asserted_state(text) or asserted_state(reason)
    if stated:
        failures.setdefault(GAP_ASSERTS_STATE, []).append(f"the action concludes: '{stated}'")
    foreign = [s for s in services_in(text) if s.lower() not in services]
    if foreign:
        failures.setdefault(ACTION_UNFOUNDED, []).append(
            "about service(s) no claim or gap is about: " + ", ".join(foreign))
    named = list(dict.fromkeys(topics_in(text)))
    own_services = [s for s in services_in(text) if s.lower() in services]
    shares = bool(_objects(_without_topics(text, topics)) & basis_units)
    if named and not set(named) & topics and not shares:
        failures.setdefault(ACTION_UNFOUNDED, []).append(
            "about topic(s) no claim or gap is about: " + ", ".join(named))
    elif not own_services and not set(named) & topics and not shares and not foreign \
            and not _RUNBOOK.search(fold(text)):
        failures.setdefault(ACTION_UNFOUNDED, []).append(
            "it looks at nothing the claims, the gaps or the question mention")
    if not repair and not _GATHER.search(fold(text)):
        failures.setdefault(ACTION_UNFOUNDED, []).append("it gathers no evidence (no look / query / "
                                                         "collect / compare / dump step)")
    return _result(action_id, "action", text, failures)
