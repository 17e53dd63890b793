#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint with ruff and run the whole test suite with pytest, spread
# over the machine's cores (pytest-xdist; the end-to-end task tests dominate and run first, see
# tests/conftest.py; worksteal hands a worker that runs dry half of the other's queue).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -q -n "${OWL_BT_TEST_WORKERS:-auto}" --dist worksteal "$@"
