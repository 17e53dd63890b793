#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint with ruff, check the layering with import-linter, and run
# the whole test suite with pytest, spread over the machine's cores (pytest-xdist; the end-to-end
# task tests dominate and run first, see tests/conftest.py; worksteal hands a worker that runs dry
# half of the other's queue).
#
# Two loops:
#   the full suite (this script, and CI's .ci/run): every test, slow ones included;
#   the quick loop while working: `.venv/bin/python -m pytest -m "not slow" -n 2` — every package's
#   unit tests, no whole episodes (tests marked `slow`: anything over a few seconds), a few minutes
#   on two cores. One file: `.venv/bin/python -m pytest tests/<package>/test_<module>.py`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/lint-imports  # the layering contract in pyproject.toml ([tool.importlinter])
.venv/bin/python -m pytest -q -n "${OWL_BT_TEST_WORKERS:-auto}" --dist worksteal "$@"
