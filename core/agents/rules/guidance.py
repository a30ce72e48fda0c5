"""What to say where the evidence stops, per topic: hypotheses, gaps, evidence-gathering steps.

This is domain knowledge, not answers: none of it is ever a claim. A hypothesis is a suspicion
(only for broad questions), a gap says what evidence is missing, an action says what to collect
next -- never a fix. ``{service}`` is filled in with the subject service.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.contracts import Language


@dataclass(frozen=True)
class TopicGuidance:
    """Per-language texts for one topic."""

    hypothesis: dict[str, str]
    missing: dict[str, str]
    action: dict[str, str]


_GUIDANCE: dict[str, TopicGuidance] = {
    "memory": TopicGuidance(
        {"zh": "{service} 可能存在内存泄漏风险。", "en": "{service} may be at risk of a memory leak."},
        {"zh": "缺少堆 dump、对象分配统计或更长时间窗口的内存曲线，尚不能判断内存持续增长的原因。",
         "en": "Heap dumps, allocation statistics or a longer memory curve are missing; what "
               "keeps memory growing is not known."},
        {"zh": "继续查看 {service} 的 GC 日志、堆 dump 或对象分配统计。",
         "en": "Collect {service}'s GC logs, a heap dump or allocation statistics."}),
    "gc": TopicGuidance(
        {"zh": "{service} 的 GC 压力可能来自堆内存持续增长。",
         "en": "{service}'s GC pressure may come from steadily growing heap usage."},
        {"zh": "缺少完整 GC 日志与停顿时间分布。", "en": "Full GC logs and pause-time distribution are missing."},
        {"zh": "导出 {service} 的完整 GC 日志并统计停顿时间。",
         "en": "Export {service}'s full GC log and measure its pause times."}),
    "cpu": TopicGuidance(
        {"zh": "{service} 的 CPU 升高可能与热点代码或线程数增长有关。",
         "en": "{service}'s CPU rise may relate to hot code paths or a growing thread count."},
        {"zh": "缺少线程 dump 或 CPU profile，尚不能定位 CPU 消耗来源。",
         "en": "Thread dumps or a CPU profile are missing; the CPU consumer is not identified."},
        {"zh": "采集 {service} 的线程 dump 和 CPU profile。",
         "en": "Capture thread dumps and a CPU profile of {service}."}),
    "latency": TopicGuidance(
        {"zh": "{service} 的慢响应可能来自下游依赖耗时。",
         "en": "{service}'s slow responses may come from downstream calls."},
        {"zh": "缺少链路追踪数据，尚不能确定耗时分布在哪个环节。",
         "en": "Trace data is missing; where the time is spent is not known."},
        {"zh": "查看 {service} 慢请求的链路追踪和各环节耗时。",
         "en": "Look at traces of {service}'s slow requests and the time spent per hop."}),
    "http_error": TopicGuidance(
        {"zh": "{service} 的 5xx 可能由请求超时引起。",
         "en": "{service}'s 5xx responses may stem from request timeouts."},
        {"zh": "缺少错误请求的完整堆栈与请求参数。",
         "en": "Stack traces and parameters of the failing requests are missing."},
        {"zh": "收集 {service} 出错请求的堆栈和请求参数。",
         "en": "Collect stack traces and parameters of {service}'s failing requests."}),
    "connection_pool": TopicGuidance(
        {"zh": "{service} 的连接可能被长事务或慢查询长期占用。",
         "en": "{service}'s connections may be held by long transactions or slow queries."},
        {"zh": "缺少连接池指标的时间序列和持有连接的线程栈。",
         "en": "A time series of pool metrics and the stacks of connection-holding threads are missing."},
        {"zh": "查看 {service} 的连接池指标（active / idle / waiting）和持有连接的线程栈。",
         "en": "Check {service}'s pool metrics (active / idle / waiting) and the stacks holding connections."}),
    "disk": TopicGuidance(
        {"zh": "{service} 的磁盘增长可能来自日志或数据文件堆积。",
         "en": "{service}'s disk growth may come from accumulating log or data files."},
        {"zh": "缺少按目录统计的磁盘占用。", "en": "Disk usage per directory is missing."},
        {"zh": "统计 {service} 各目录的磁盘占用和增长速度。",
         "en": "Measure disk usage and growth per directory on {service}."}),
    "redis": TopicGuidance(
        {"zh": "{service} 的 Redis 超时可能来自 Redis 侧负载或网络抖动。",
         "en": "{service}'s Redis timeouts may come from Redis load or network jitter."},
        {"zh": "缺少 Redis 服务端的慢日志与延迟指标。", "en": "Redis server slowlog and latency metrics are missing."},
        {"zh": "查看 Redis 服务端慢日志、延迟指标和 {service} 的客户端连接数。",
         "en": "Check the Redis slowlog, latency metrics and {service}'s client connections."}),
    "mq": TopicGuidance(
        {"zh": "{service} 的消息积压可能来自消费速度下降。",
         "en": "{service}'s backlog may come from slower consumers."},
        {"zh": "缺少消费者速率和积压变化曲线。", "en": "Consumer rates and the backlog curve over time are missing."},
        {"zh": "查看 {service} 相关队列的消费速率和积压趋势。",
         "en": "Check consumer rates and the backlog trend of {service}'s queues."}),
    "slow_query": TopicGuidance(
        {"zh": "慢查询可能与缺失索引或锁竞争有关。",
         "en": "Slow queries may relate to missing indexes or lock contention."},
        {"zh": "缺少这些 SQL 的执行计划。", "en": "Execution plans of these statements are missing."},
        {"zh": "对慢 SQL 执行 EXPLAIN 并查看锁等待情况。",
         "en": "Run EXPLAIN on the slow statements and inspect lock waits."}),
    "oom": TopicGuidance(
        {"zh": "{service} 的内存溢出可能来自堆配置偏小或内存泄漏。",
         "en": "{service}'s out-of-memory errors may come from a small heap or a leak."},
        {"zh": "缺少 OOM 发生时的堆 dump。", "en": "A heap dump taken at the out-of-memory moment is missing."},
        {"zh": "为 {service} 开启 OOM 时自动生成堆 dump 并查看容器内存限制。",
         "en": "Enable heap dumps on out-of-memory for {service} and check its container memory limit."}),
    "restart": TopicGuidance(
        {"zh": "{service} 的重启可能与容器内存限制有关。",
         "en": "{service}'s restarts may relate to its container memory limit."},
        {"zh": "缺少重启前的容器日志与事件记录。",
         "en": "Container logs and events from before the restarts are missing."},
        {"zh": "查看 {service} 重启前的容器日志和 Kubernetes 事件。",
         "en": "Read {service}'s container logs before each restart and the Kubernetes events."}),
    "threads": TopicGuidance(
        {"zh": "{service} 的线程数增长可能来自阻塞调用。",
         "en": "{service}'s thread growth may come from blocking calls."},
        {"zh": "缺少线程 dump。", "en": "Thread dumps are missing."},
        {"zh": "采集 {service} 的线程 dump 并按状态统计。",
         "en": "Capture {service}'s thread dumps and count threads by state."}),
}


def guidance_for(topic: str) -> TopicGuidance | None:
    """The guidance of a topic, if there is any."""
    return _GUIDANCE.get(topic)


def render(template: dict[str, str], language: Language, service: str | None) -> str:
    """One text in the language, with the service filled in."""
    fallback = "该服务" if language == "zh" else "the service"
    return template[language].format(service=service or fallback)
