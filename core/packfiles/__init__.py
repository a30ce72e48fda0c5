"""The readers of a pack folder's files, private to ``core.packs`` (which re-exports what is
public): ``formats`` (file names, limits, models, shared helpers), ``yamlfiles`` (pack.yaml,
alerts.yaml, series.yaml), ``logs`` (logs.jsonl, logs.yaml or a log store) and ``runbooks``
(runbooks/ and rules/). None of them imports ``core.packs``."""
