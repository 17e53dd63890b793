"""The benchmark (SPEC §8, DESIGN §6): run (task, seed) episodes of a method in worker processes,
append one JSON line per finished episode to `episodes.jsonl`, and summarise them next to the
reference figures of SPEC §8.3.

Modules: `methods` (method name → EpisodeConfig), `runner` (the worker pool, resumable JSONL),
`summary` (metrics of SPEC §8.2, `summary.md` / `summary.json`), `reference` (SPEC §8.3 as data),
`progress` (the rich progress bar).
"""
