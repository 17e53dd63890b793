#!/usr/bin/env bash
# Set up owl-bt on a fresh machine: system libraries (as root, via apt-get), a virtualenv in .venv,
# and the package with its test extras. Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
dpkg -s libusb-1.0-0 >/dev/null 2>&1 || need_apt+=(libusb-1.0-0)   # open3d imports libusb
dpkg -s libgl1 >/dev/null 2>&1 || need_apt+=(libgl1)                 # open3d's rendering libs
dpkg -s graphviz >/dev/null 2>&1 || need_apt+=(graphviz)             # tree.png in run reports
dpkg -s libportaudio2 >/dev/null 2>&1 || need_apt+=(libportaudio2)   # the microphone for run --listen
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing system packages: ${need_apt[*]}" >&2
    # apt and debconf talk on stderr even with -qq ("debconf: delaying package configuration, since
    # apt-utils is not installed"): their output is kept in a log, shown only when they fail
    export DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes
    apt_log=$(mktemp)
    if ! { apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"; } >"$apt_log" 2>&1; then
      cat "$apt_log" >&2
      rm -f "$apt_log"
      echo "setup: apt-get could not install ${need_apt[*]} (its output is above)" >&2
      exit 1
    fi
    rm -f "$apt_log"
  else
    echo "setup: please install these system packages first: ${need_apt[*]}" >&2
  fi
fi

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($PY --version)" >&2
  "$PY" -m venv .venv
fi
stamp=.venv/.owl-bt-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing owl-bt and its dependencies into .venv (first time: a few minutes)" >&2
  # quiet pip: no root-user or new-version notices, no setuptools note on editable installs; errors still show
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONWARNINGS="ignore:Editable installation"
  .venv/bin/python -m pip install -qq --upgrade pip >/dev/null
  .venv/bin/python -m pip install -qq -e ".[test,ur]"  # -qq: errors only (a pip set up with missing local indexes warns for each package)
  touch "$stamp"
  echo "setup: done; try  .venv/bin/owl-bt --help" >&2
else
  echo "setup: up to date (.venv has owl-bt; nothing to install)" >&2
fi
