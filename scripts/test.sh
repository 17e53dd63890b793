#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint with ruff and run the whole test suite with pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -q "$@"
