"""What the rules engine reads from a question (core/language/question.py, core/language/concepts.py)
and which searches it makes of them (core/agents/rules/searches.py), on worlds of any shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agents.rules.planner import RulesPlanner, alert_topics
from core.agents.rules.searches import log_searches, service_search
from core.cli import main
from core.contracts import LogEntry, LogGroup, Plan
from core.language.concepts import CONCEPTS, concept_mentions, concepts_held, concepts_in, holds_term
from core.language.keywords import search_prefix
from core.language.levels import asks_about_health
from core.language.lexicon import TOPICS, alert_words, topics_in
from core.language.names import strip_markup
from core.language.question import read_question
from core.language.text import normalize
from core.pipeline import ask
from core.sources.base import Vocabulary, World
from core.sources.pack import load_world
from tests.hand_sources import RM_GROUP, RM_GROUP_TEXT, GroupedLogs, hadoop_world

SERVICES = ["zookeeper", "hadoop-mapreduce", "openstack-nova", "hdfs-datanode", "spark-executor"]
ALERTS = ["TargetDown", "HostOutOfDiskSpace", "KubePodCrashLooping"]


def read(question: str):  # type: ignore[no-untyped-def]
    return read_question(question, services=SERVICES, alert_names=ALERTS)


# ---------------------------------------------------------------- the question's words


def test_services_of_any_shape_are_found_and_unknown_ones_reported() -> None:
    assert read("Are there any ERROR logs in zookeeper?").services == ["zookeeper"]
    assert read("HADOOP-MAPREDUCE 有没有 FATAL").services == ["hadoop-mapreduce"]
    for question, unknown in [("kafka-broker 是否有连接异常？", "kafka-broker"),
                              ("Is there a TargetDown alert for cassandra-db?", "cassandra-db"),
                              ("payment-service 有没有 ERROR 日志？", "payment-service"),
                              ("Is the billing service down?", "billing")]:
        reading = read(question)
        assert reading.services == [] and reading.unknown_services == [unknown], question
    # Hyphenated words are not services.
    assert read("Is zookeeper in read-only mode?").unknown_services == []
    # A plain word as the subject, when no service of the data is named.
    assert read("Does nginx have errors?").unknown_services == ["nginx"]
    assert read("nginx 有没有错误").unknown_services == ["nginx"]
    assert read("Did spark-executor finish any tasks?").unknown_services == []
    assert read("Does zookeeper have errors?").unknown_services == []


def test_a_numbered_service_is_also_named_by_its_base() -> None:
    """Instances and samples (kafka-0, Zookeeper_2k) are what people call kafka and zookeeper;
    a service spelled as the base itself keeps the word; short bases (db-1) are not aliases."""
    services = ["Zookeeper_2k", "kafka-0", "kafka-1", "redis", "redis-2", "db-1", "order-service"]
    def named(question: str) -> list[str]:
        return read_question(question, services=services).services
    assert named("zookeeper 有哪些连接中断的警告？") == ["Zookeeper_2k"]
    assert named("Is kafka lagging?") == ["kafka-0", "kafka-1"]
    assert named("redis errors?") == ["redis"] and named("redis-2 errors?") == ["redis-2"]
    assert named("any db errors?") == [] and named("order 123 failed") == []
    assert read_question("zookeeper errors?", services=services).unknown_services == []
    # an alias is a name of its own, not the start of another (node-7 is not node-1 or node-2)
    nodes = ["node-1", "node-2"]
    assert read_question("Is HostOutOfDiskSpace firing on node-7?", services=nodes).services == []
    assert read_question("Is the disk full on any node?", services=nodes).services == nodes


def test_alert_names_as_the_data_spells_them_and_unknown_ones() -> None:
    assert read("is hostoutofdiskspace firing on hdfs-datanode?").alert_names == ["HostOutOfDiskSpace"]
    reading = read("Is there a HadoopNameNodeDown alert for hadoop-mapreduce?")
    assert reading.alert_names == [] and reading.unknown_alerts == ["HadoopNameNodeDown"]
    # Without an alert word a CamelCase name is a class or exception to search for.
    assert read("Any NoRouteToHostException in hadoop-mapreduce?").terms == ["NoRouteToHostException"]
    assert read("Did QuorumCnxManager log anything in zookeeper?").terms == ["QuorumCnxManager"]


@pytest.mark.parametrize("question, terms", [
    ("Did zookeeper log 'Connection broken'?", ["Connection broken"]),
    ('Did zookeeper log "Connection broken"?', ["Connection broken"]),
    ("zookeeper 有没有“会话过期”的记录", ["会话过期"]),
    ("zookeeper 里有「Cannot open channel」吗", ["Cannot open channel"]),
    ("any java.net.ConnectException in zookeeper?", ["java.net.ConnectException"]),
    ("blk_38865049064139660 在 hdfs-datanode 上有记录吗？", ["blk_38865049064139660"]),
    ("what about appattempt_1445144423722_0020_000001?", ["appattempt_1445144423722_0020_000001"]),
    ("req-38101a0b-2096-447d-96ea-a692162415ae in openstack-nova",
     ["req-38101a0b-2096-447d-96ea-a692162415ae"]),
    ("anything about 10.10.34.13:3888 or /mnt/hadoop/dfs?", ["10.10.34.13:3888", "/mnt/hadoop/dfs"]),
    ("is port 2181 open on zookeeper", ["2181"]),
    ("How many 503s did access return?", ["503"]),  # a code in the plural is the code
    ("Which DataNodes served blocks?", ["DataNode"]),  # a class name in the plural: the class
    ("any NoRouteToHostExceptions in hadoop-mapreduce?", ["NoRouteToHostException"]),
    ("HTTPStatus errors in nginx", ["HTTPStatus"]),  # -us, -ss, -is: not plurals
    # an HTTP method written as one is what access lines hold ("get" is a question word)
    ("What GET requests did openstack-nova log?", ["GET"]),
    ("openstack-nova 记录了哪些 GET 请求？", ["GET"]),
    ("How many POSTs failed in openstack-nova?", ["POST"]),
    ("Did openstack-nova get any requests?", []),
    # a subnet written as a prefix (a bare decimal is no term)
    ("Did hdfs-datanode log anything about 10.251.?", ["10.251"]),
    ("lines from 10.251.* in zookeeper", ["10.251"]),
    ("Is the load of zookeeper above 0.93?", []),
])
def test_exact_terms(question: str, terms: list[str]) -> None:
    assert read(question).terms == terms


@pytest.mark.parametrize("question, level", [
    ("Are there any ERROR logs in zookeeper?", "ERROR"),
    ("zookeeper 有没有 WARN 级别的日志", "WARN"),
    ("show zookeeper warnings", "WARN"),
    ("hadoop-mapreduce 有没有 FATAL", "FATAL"),
    ("any error level lines?", "ERROR"),
    ("zookeeper 有没有警告", "WARN"),
    ("any errors in zookeeper?", None),  # a word, not a level: the error concept
])
def test_levels(question: str, level: str | None) -> None:
    assert read(question).level == level


def test_concepts_in_both_languages_and_compounds() -> None:
    assert read("zookeeper 是否存在连接异常").concepts == ["connection", "exception"]
    assert read("Any connection problems in zookeeper?").concepts == ["connection", "problem"]
    assert read("zookeeper 是否出现会话过期？").compounds == [["session", "expired"]]
    assert read("zookeeper sessions expiring?").compounds == [["session", "expired"]]
    # Joined by a conjunction: two subjects, not one compound.
    assert read("zookeeper 的超时和连接问题").compounds == []
    # A lexicon topic joined to a concept: containers killed for exceeding memory.
    assert read("hadoop-mapreduce 是否有容器因为内存超限被杀掉？").compounds == [["oom", "killed"]]


@pytest.mark.parametrize("question, concepts", [
    # "log in" as signing in: failed logins.
    ("Why could users not log in to zookeeper?", ["login"]),
    ("zookeeper failed to log in", ["failure", "login"]),
    ("any log in attempts on zookeeper?", ["login"]),
    # ... a completed one ("who logged in", "did anyone log in"): successful logins.
    ("who logged in as root on zookeeper?", ["signin"]),
    ("did anyone log into the zookeeper console?", ["signin"]),
    ("who logged in this morning?", ["signin"]),
    ("users failed to log in the last hour", ["failure", "login"]),  # a person's "to log in"
    ("users couldn't log in the past day", ["login"]),
    # "log" of a service writing lines, "in" a time or place: not logins.
    ("What errors did zookeeper log in the last hour?", ["error"]),
    ("what errors did nginx log in production?", ["error"]),
    ("zookeeper errors logged in the past 10 minutes", ["error"]),
    ("did zookeeper log in 2024?", []),
    # ...nor the noun "log"/"logs" in a service the question names.
    ("Is there an ERROR log in zookeeper?", []),
    ("any exceptions in the log in zookeeper?", ["exception"]),
    ("Are there any ERROR logs in zookeeper?", []),
    ("Did users fail to log in on zookeeper?", ["failure", "login"]),
    # Chinese questions are read as before.
    ("zookeeper 最近一小时记录了哪些错误？", ["error"]),
    ("zookeeper 有没有登录失败？", ["login", "failure"]),
])
def test_log_in_is_login_only_where_it_means_signing_in(question: str, concepts: list[str]) -> None:
    assert read(question).concepts == concepts


def test_errors_logged_in_the_last_hour_are_searched_by_level() -> None:
    [search] = log_searches(_plan("What errors did zookeeper log in the last hour?"))
    assert (search.kind, search.attempts[0]["level"], search.concepts) == ("level", "ERROR", ("error",))


def test_keywords_are_stemmed_and_translated() -> None:
    assert read("Did spark-executor finish any tasks?").keywords == [["finish"], ["task"]]
    assert read("spark-executor 是否有任务完成").keywords == [["task"], ["finish", "complet", "succe"]]
    assert search_prefix("terminating") == "terminat" and search_prefix("RM") == "rm"
    assert search_prefix("lease") == "lease"


@pytest.mark.parametrize("question, keywords", [
    # a dictionary word is read before the filler inside it: 请求 is not 请 ("please") + 求
    ("openstack-nova 有哪些请求失败？", [["request"]]),
    ("hdfs-datanode 的服务器有没有磁盘问题？", [["server"]]),
    ("spark-executor 的执行器有没有丢失？", [["executor"], ["lost", "missing"]]),
    ("openstack-nova 有哪些虚拟机被销毁？", [["vm", "instance"], ["destroy"]]),
    ("openstack-nova 有没有挂载失败？", [["mount"]]),  # 挂载 is mounting, not 挂 (down)
    ("openstack-nova 的实例启动耗时多久？", [["instance"], ["start", "spawn", "boot", "launch"], ["took", "elapsed"]]),
    # asking for a duration, going wrong, anywhere: question words, not words of a line
    ("How long did it take to spawn instances in openstack-nova?", [["spawn"], ["instanc"]]),
    ("What went wrong with zookeeper?", []),
    ("Are there timeouts anywhere?", []),
    ("Compare the errors of zookeeper and hadoop-mapreduce", []),
    ("List all unique error messages in zookeeper", []),
    ("What IP addresses appear in zookeeper warnings?", []),  # asked for: what the lines hold
])
def test_question_words_are_not_searched_and_chinese_words_are_read_whole(
        question: str, keywords: list[list[str]]) -> None:
    assert read(question).keywords == keywords


def test_going_wrong_is_asking_about_problems() -> None:
    assert read("What went wrong with zookeeper?").concepts == ["problem"]
    assert read("openstack-nova 有没有挂载失败？").concepts == ["failure"]


def test_nothing_searchable() -> None:
    for question in ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "qwerty zxcv?",
                     "   ?!  "):
        assert not read(question).searchable, question
    assert strip_markup("<b>zookeeper</b> errors") == " zookeeper  errors"
    assert read("zookeeper?").searchable


def test_a_hyphenated_name_is_what_a_question_with_nothing_else_asks_about() -> None:
    for question in ("What happened to bank-gateway?", "bank-gateway 怎么了？"):
        reading = read(question)
        assert (reading.terms, reading.searchable) == (["bank-gateway"], True), question
    # next to other things to search it stays a word of the question, in subject position a service
    assert read("Did the long-running job hit timeouts?").terms == []
    assert read("Does cassandra-db have errors?").unknown_services == ["cassandra-db"]


# ---------------------------------------------------------------- vocabulary tables


def test_demo_synonyms_do_not_tag_real_lines() -> None:
    for line in ("Interrupted while waiting for message on queue",
                 "Block rdd_2_3 stored as bytes in memory (estimated size 16.0 B, free 317.5 KB)",
                 "Deleting block blk_-1 file /mnt/hadoop/dfs/data/current/subdir30/blk_-1",
                 "Attempting claim: memory 2048 MB, disk 20 GB, vcpus 1 CPU",
                 "Reduce slow start threshold not met. completedMapsForReduceSlowstart 1"):
        assert topics_in(line, in_logs=True) == [], line
    # ...while the same words still open the topic in a question.
    assert topics_in("spark-executor 内存怎么样") == ["memory"]
    assert topics_in("zookeeper queue") == ["mq"]


def test_a_text_holds_a_concept_when_it_names_it_or_holds_one_of_its_phrases_or_stems() -> None:
    """``concepts_held`` (prepared once, its phrases pre-checked by their longest word) says
    what naming a concept or ``holds_term``/a stem on each of its phrases says, text by text."""
    texts = [term for concept in CONCEPTS.values() for term in concept.terms]
    texts += [term.replace(" ", "\t") for term in texts] + [f"x{term}x" for term in texts[:40]]
    texts += ["Connection  Refused by db-1", "connection refusedx", "线程池已满 connection broken", "Task done"]
    for text in texts:
        normalized = normalize(text)
        expected = {mention.concept for mention in concept_mentions(normalized)}
        expected |= {name for name, concept in CONCEPTS.items()
                     if any(stem in normalized for stem in concept.stems)
                     or any(holds_term(normalized, term) for term in concept.terms)}
        assert concepts_held(text) == expected, text


def test_concept_table_is_consistent() -> None:
    reached = {concept.succeeded: name for name, concept in CONCEPTS.items() if concept.succeeded}
    for name, concept in CONCEPTS.items():
        assert concept.name == name and concept.label_zh and concept.label_en
        # a concept is named by its own words, or only through the one it is the success of
        assert bool(concept.asks) != (name in reached), name
        if name in reached:
            # its labels read back as it: a claim naming it is grounded by lines that hold it
            assert concepts_in(concept.label_zh) == concepts_in(concept.label_en) == [name], name
        assert concept.qualifier or concept.terms, name
        assert len(concept.terms) <= 20, name  # one query_logs call holds at most 20 terms
        # A label names no negation: it is said in claims, and a negation is a fact.
        assert not any(mark in concept.label_zh for mark in "不没未无非"), name
        for stem_ in concept.stems:
            assert not topics_in(stem_), (name, stem_)  # a stem is searched as a word, not a topic
    assert concepts_in("连接断开") == ["connection"] and concepts_in("network unreachable") == ["network"]
    assert [m.concept for m in concept_mentions(normalize("connections timed out"))] == [
        "connection", "timeout"]
    assert holds_term("connection refused by db-1", "connection refused")
    assert not holds_term("reconnection refusedx", "connection refused")


@pytest.mark.parametrize("alert, topic", [
    ("HostOutOfDiskSpace", "disk"), ("KubePodCrashLooping", "restart"), ("HighCPUUsage", "cpu"),
    ("HostHighCpuLoad", "cpu"), ("SparkExecutorHighGcTime", "gc")])
def test_alert_names_are_read_as_words(alert: str, topic: str) -> None:
    assert topic in alert_topics(alert)
    assert alert_words("HostOutOfDiskSpace") == "host out of disk space"
    assert TOPICS[topic]


# ---------------------------------------------------------------- searches


def _plan(question: str) -> Plan:
    world = World(name="w", now=hadoop_world().now, metrics=None, logs=None)
    object.__setattr__(world, "vocabulary", Vocabulary(services=tuple(SERVICES), alert_names=tuple(ALERTS)))
    return RulesPlanner().plan(question, world)


def test_searches_carry_the_questions_terms_level_and_exclusions() -> None:
    [search] = log_searches(_plan("Did zookeeper log 'Connection broken' at ERROR level?"))
    assert search.kind == "term" and search.attempts == (
        {"terms": ["Connection broken"], "limit": 50, "level": "ERROR"},)
    [search] = log_searches(_plan("zookeeper 是否存在连接异常，忽略 WARN 和 'Connection broken'"))
    assert search.kind == "concept" and search.attempts[0]["match"] == "any"
    assert "connection refused" in search.attempts[0]["terms"]
    assert search.attempts[0]["exclude"] == ["Connection broken", "WARN"]
    [search] = log_searches(_plan("hadoop-mapreduce 有没有 ERROR IN CONTACTING RM"))
    assert search.attempts == ({"query": "contact rm", "match": "all", "limit": 50, "level": "ERROR"},)
    [search] = log_searches(_plan("spark-executor 是否有任务完成"))
    assert [a["query"] for a in search.attempts] == ["task finish", "task complet", "task succe"]
    [search] = log_searches(_plan("zookeeper 是否出现会话过期？"))
    assert search.kind == "compound" and "expiring session" in search.attempts[0]["terms"]
    # An error word next to other words: the line holds "error" (its text, or its level).
    [search] = log_searches(_plan("Did hadoop-mapreduce have errors contacting the RM?"))
    assert search.attempts == ({"query": "contact rm error", "match": "all", "limit": 50},
                               {"query": "contact rm", "match": "all", "level": "ERROR", "limit": 50})
    [search] = log_searches(_plan("sshd 有没有认证失败？".replace("sshd", "zookeeper")))
    assert search.concepts == ("login",) and "failed password" in search.attempts[0]["terms"]
    [search] = log_searches(_plan("any errors in zookeeper?"))
    assert (search.kind, search.attempts[0]["level"]) == ("level", "ERROR")
    assert log_searches(_plan("zookeeper 现在有什么问题？")) == []  # broad: the service's own search
    # A broad qualifier with keywords: the keywords' lines whose level says a problem.
    [search] = log_searches(_plan("hadoop-mapreduce 的 RM 通信有什么问题？"))
    assert search.attempts == ({"query": "rm", "match": "all", "level": "WARN", "limit": 50},)
    assert search.label("en") == 'with "rm" at level WARN or above'
    # Keywords with a qualifier no line holds: the keywords' lines whose level says the trouble.
    [search] = log_searches(_plan("How many times did hadoop-mapreduce fail to contact the RM?"))
    assert search.attempts == ({"query": "contact rm fail", "match": "all", "limit": 50},
                               {"query": "contact rm", "match": "all", "level": "WARN", "limit": 50})
    # Nothing but a service: its lines at WARN or above; asked what it logged, then any line.
    assert service_search(_plan("What did hadoop-mapreduce log?")).attempts == (
        {"level": "WARN", "limit": 50}, {"limit": 50})
    for question in ("Is hadoop-mapreduce healthy?", "hadoop-mapreduce 有什么问题？", "hadoop-mapreduce 正常吗？"):
        assert service_search(_plan(question)).attempts == ({"level": "WARN", "limit": 50},), question
    # A concept's log phrases, then its plain word in lines at WARN or above.
    [search] = log_searches(_plan("Did hadoop-mapreduce log any timeouts?"))
    assert search.kind == "concept" and search.attempts[1] == {
        "terms": ["timeout", "timeouts"], "match": "any", "level": "WARN", "limit": 50}
    # Words that ask when or how often are not in the lines ("first", "most common").
    [search] = log_searches(_plan("When did hadoop-mapreduce first fail to contact the RM?"))
    assert search.attempts[0]["query"] == "contact rm fail"
    assert [s.keywords for s in log_searches(_plan("What is the most common warning of hadoop-mapreduce?"))] == [()]
    # An exact term with a qualifier: its lines holding the qualifier first, then the term's lines.
    [search] = log_searches(_plan("What exceptions did the DataNode hit while serving blocks?"))
    assert search.attempts == ({"terms": ["DataNode"], "query": "exception", "match": "all", "limit": 50},
                               {"terms": ["DataNode"], "level": "WARN", "limit": 50})
    assert search.concepts == ("exception",)
    # ... at the qualifier's own level: INFO lines holding the term do not answer "any errors?"
    [search] = log_searches(_plan("OpenStack 有没有错误日志？"))
    assert search.attempts[1] == {"terms": ["OpenStack"], "level": "ERROR", "limit": 50}


# ---------------------------------------------------------------- groups and outcomes


def test_a_group_becomes_a_claim_with_its_count_and_time_range() -> None:
    document = ask("Did hadoop-mapreduce log ERROR IN CONTACTING RM?", pack=hadoop_world())
    assert document.outcome == "found" and document.verifier_result is not None
    assert document.verifier_result.verdict == "PASS"
    assert document.executor_output is not None
    [claim] = document.executor_output.claims
    assert ('147 ERROR lines between 2015-10-18 18:06:01 and 2015-10-18 18:10:13 like '
            '"ERROR IN CONTACTING RM. <*>"') in claim.claim_text
    cited = [b for b in claim.evidence_bindings if b.raw_path == "$.groups[0]"]
    assert cited and cited[0].evidence_excerpt == RM_GROUP_TEXT
    gate = document.gatekeeper_result
    assert gate is not None and gate.status == "pass"


def test_a_group_of_one_line_none_of_the_shown_lines_is_told_with_its_one_time() -> None:
    """Its time is not read as the time of the count (the ref text puts it after the template)."""
    single = LogGroup(template="Container complete event for unknown container id <*>", count=1,
                      service="hadoop-mapreduce", level="ERROR", first_timestamp="2015-10-18 18:04:11",
                      last_timestamp="2015-10-18 18:04:11", sample_indexes=[])
    world = hadoop_world(logs=GroupedLogs(groups=[RM_GROUP, single]))
    for question in ("What caused the RMCommunicator errors in hadoop-mapreduce?",
                     "hadoop-mapreduce 里 RMCommunicator 的错误是什么原因？"):
        document = ask(question, pack=world)
        assert document.executor_output is not None and document.verifier_result is not None
        [claim] = document.executor_output.claims
        assert "2015-10-18 18:04:11" in claim.claim_text, question
        assert document.verifier_result.verdict == "PASS", question


def test_a_search_of_every_service_says_whose_lines_are_whose() -> None:
    """One claim per service: a sentence naming hadoop-mapreduce must not quote ZooKeeper's
    lines (it did, and the verifier blocked the answer as a count given for another service)."""
    zk_group = LogGroup(template="Unexpected exception causing shutdown while sock still open", count=12,
                        service="zookeeper", level="ERROR", first_timestamp="2015-07-29 19:03:35",
                        last_timestamp="2015-07-29 19:21:26", sample_indexes=[])
    world = hadoop_world(logs=GroupedLogs(groups=[RM_GROUP, zk_group]))
    for question in ("Which services logged errors?", "哪个服务的错误最多？"):
        document = ask(question, pack=world)
        assert document.executor_output is not None and document.verifier_result is not None
        by_service = {tuple(c.subject_services): c.claim_text for c in document.executor_output.claims}
        assert set(by_service) == {("hadoop-mapreduce",), ("zookeeper",)}, question
        assert "147" in by_service[("hadoop-mapreduce",)] and "12" not in by_service[("hadoop-mapreduce",)]
        assert "12" in by_service[("zookeeper",)] and "147" not in by_service[("zookeeper",)]
        assert document.verifier_result.verdict == "PASS", question


def test_an_empty_search_is_an_absence_saying_what_was_searched() -> None:
    world = hadoop_world(logs=GroupedLogs(lines=[], groups=[]))
    document = ask("Did hadoop-mapreduce log 'Connection refused' at ERROR level?", pack=world)
    assert document.outcome == "absent"
    assert document.executor_output is not None
    [claim] = document.executor_output.claims
    assert claim.claim_type == "negative_observation"
    assert "terms=['Connection refused']" in claim.claim_text and "level=ERROR" in claim.claim_text


@pytest.mark.parametrize("question", [
    "order-service 有没有 OutOfMemory？",
    "inventory-service 是否出现过「Connection reset by peer」？",
    "Does order-service have OutOfMemory?",
    "order-service 有没有 OutOfMemory 错误？",  # the term, then the term with its qualifier
])
def test_an_absent_exact_term_is_a_verified_no_in_either_language(question: str) -> None:
    """The absence says what was searched in words the verifier holds to the search (Chinese
    "与「X」匹配的" left "匹配的日志记录" a sentence no query says, and blocked a true "no")."""
    document = ask(question, pack=load_world("demo"))
    assert document.outcome == "absent", question
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS", question


@pytest.mark.parametrize("question", ["Were any hadoop-mapreduce connections refused?",
                                      "hadoop-mapreduce 有哪些连接被拒绝？"])
def test_an_absent_compound_is_named_by_the_phrases_it_searched(question: str) -> None:
    """Two concepts searched by their joint phrase ("connection refused"): the absence names
    that phrase, not every connection problem (which the gatekeeper rejected as unsearched)."""
    document = ask(question, pack=hadoop_world(logs=GroupedLogs(lines=[], groups=[])))
    assert document.executor_output is not None
    [claim] = document.executor_output.claims
    assert "connection refused" in claim.claim_text and claim.claim_type == "negative_observation"
    assert document.gatekeeper_result is not None and document.gatekeeper_result.status == "pass"
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"


@pytest.mark.parametrize("question", ["Which IPs tried to log in as root?", "hadoop-mapreduce 有没有登录失败？",
                                      "Did hadoop-mapreduce log any timeouts?"])
def test_an_absent_concept_is_told_by_the_call_of_its_phrases(question: str) -> None:
    """The concept's phrases and then its plain words at WARN+ found nothing: the absence cites
    the phrases' call, which its label names (citing the plain words' call too was rejected as
    claiming more than that query looked for)."""
    document = ask(question, pack=hadoop_world(logs=GroupedLogs(lines=[], groups=[])))
    assert document.outcome == "absent", question
    assert document.gatekeeper_result is not None and document.gatekeeper_result.status == "pass", question
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS", question


def test_lines_holding_only_some_of_a_compound_are_told_as_what_they_hold() -> None:
    """"When did X last reject a password?": the lines say "Failed password", none "rejected";
    they are told as failed logins (no claim at all had left the answer blocked), and, since
    none says what the question asks happened (rejected), they are the closest lines, not a
    green answer (``verifier.off_predicate``)."""
    lines = [LogEntry(timestamp="2015-10-18 18:01:00", level="WARN", service="sshd",
                      message="Failed password for root from 203.0.113.9 port 52213 ssh2")]
    world = hadoop_world(logs=GroupedLogs(lines=lines, groups=[]))
    document = ask("When did sshd last reject a password?", pack=world)
    assert document.executor_output is not None and document.verifier_result is not None
    [claim] = document.executor_output.claims
    assert "failed logins" in claim.claim_text and "Failed password for root" in claim.claim_text
    result = document.verifier_result
    assert result.claim_results[0].entailed and result.verdict == "LOW_CONFID"
    assert result.answer_rules == ["verifier.off_predicate"]
    assert [(t.text, t.fate) for t in result.question_terms if not t.accounted] == [("refused", "unmatched")]


def test_unknown_and_not_understood_sweep_nothing() -> None:
    world = load_world("demo")
    for question, outcome in [("Does billing-service log errors?", "unknown_subject"),
                              ("<script>alert(1)</script>", "not_understood"),
                              ("zxcv qwer?", "not_understood")]:
        document = ask(question, pack=world)
        assert document.outcome == outcome and document.invocations == [], question
        assert document.verifier_result is not None and document.verifier_result.verdict != "PASS"


def test_excluding_a_level_leaves_alerts_whose_severity_says_warning() -> None:
    document = ask("order-service 有哪些告警？忽略 WARN", pack=load_world("demo"))
    assert document.plan is not None and document.plan.exclusions.levels == ["WARN"]
    assert document.plan.exclusions.terms == []
    answer = document.composer_output.user_facing_answer if document.composer_output else ""
    assert "HighMemoryUsage" in answer  # severity=warning is not the excluded level
    assert document.outcome == "found"


@pytest.mark.parametrize("question", ["Why did payments fail?", "payments 为什么失败？", "Did payments fail?"])
def test_a_failure_no_line_words_is_answered_by_the_lines_whose_level_reports_it(
        question: str, tmp_path: Path) -> None:
    """No line says "fail": the service's ERROR lines answer, told as ERROR lines (a claim
    calling them "failures" says what they do not), beside the verified absence of the words."""
    log = tmp_path / "payments.log"
    log.write_text("2024-03-01 10:00:01,000 ERROR [main] Pay: upstream timeout calling bank-gateway after 3000ms\n"
                   "2024-03-01 10:00:02,000 INFO [main] Pay: payment accepted\n", encoding="utf-8")
    pack = tmp_path / "pack"
    pack.mkdir()
    assert main(["logs", "import", str(log), "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs:\n  store: logs.db\n", encoding="utf-8")
    document = ask(question, pack=load_world(str(pack)))
    assert document.executor_output is not None and document.verifier_result is not None
    found, absent = document.executor_output.claims
    assert found.claim_type == "observation" and "upstream timeout" in found.claim_text
    assert "ERROR" in found.claim_text and "payment accepted" not in found.claim_text
    assert absent.claim_type == "negative_observation"
    assert document.verifier_result.verdict == "PASS" and document.outcome == "found"


@pytest.mark.parametrize("question", ["Did order-service restart recently?", "order-service 最近重启过吗？"])
def test_a_line_naming_two_topics_as_often_is_evidence_of_either(question: str) -> None:
    """"容器 order-service 被重启: OOMKilled (exit code 137), 重启次数 3" names a restart twice and
    an OOM twice; weighed by characters (重启 is two, "exit code 137" thirteen) it was an OOM line
    only, and "did it restart?" answered "cannot tell" beside it."""
    document = ask(question, pack=load_world("demo"))
    assert document.outcome == "found" and document.composer_output is not None
    assert "被重启" in document.composer_output.user_facing_answer
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"


def test_health_and_alert_state_words_are_read_from_the_question_vocabulary() -> None:
    """``vocab/question.yaml``: English words whole and in any case, Chinese as written, 正常
    not after a negation; each alert state by every form of its words, in the question's order."""
    assert asks_about_health("Is zookeeper HEALTHY?") and asks_about_health("zookeeper 正常吗？")
    assert not asks_about_health("zookeeper 不正常吗？") and not asks_about_health("unhealthy nodes")
    assert asks_about_health("zookeeper 不健康吗？")  # only 正常 is read with its negation
    assert read("Which alerts are silenced or firing?").alert_states == ["suppressed", "firing"]
    assert read("有没有 TargetDown 告警在触发，还是已恢复？").alert_states == ["firing", "resolved"]
    assert read("Is TargetDown pending?").alert_states == ["pending"]
    assert read("Is the firewall muted?").alert_states == []  # not about alerts


def test_lowered_keeps_every_position_and_lowers_each_character_alone() -> None:
    from core.language.question_words import QuestionText

    def one_by_one(text: str) -> str:
        return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)

    every_char = "".join(chr(code) for code in range(0x20, 0x30000) if not 0xD800 <= code < 0xE000)
    for text in (every_char, "İstanbul ABC", "ΣΑΣ ΟΔΟΣ", "CPU ΣΑΣ 只确认", "ǅ Ⅻ K"):
        question = QuestionText(text)
        question.chars = list(text)  # as given, not NFKC: every character is tried
        assert question.lowered == one_by_one(text)
        assert len(question.lowered) == len(text)
