"""Sessions exported as OpenInference traces over OTLP (docs/otlp.md): ``spans`` builds
them from a session document, ``send`` sends them (optional extra ``superbiz[otel]``)."""
