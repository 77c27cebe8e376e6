"""Benchboard runs benchmarks itself: providers from the operator's TOML file, an
OpenAI-compatible client (the official ``openai`` package with ``base_url``) with
retries, a per-call timeout and bounded concurrency per provider, and one attempt of a
run plan sent and read back. No storage here: :mod:`bot.core.runs` queues, scores and
records.
"""
