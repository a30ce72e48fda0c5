"""Eval suites that need data built at test time (not the default suite in mockdata/evals)."""
