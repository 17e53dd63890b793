"""The benchmark: run (task, seed) episodes of a method in worker processes,
append one JSON line per finished episode to `episodes.jsonl`, and summarise them next to the
reference figures (docs/benchmark.md).

Modules: `methods` (method name → EpisodeConfig), `runner` (the worker pool, resumable JSONL),
`summary` (the metrics, `summary.md` / `summary.json`), `reference` (the reference figures as data),
`progress` (the rich progress bar).
"""
