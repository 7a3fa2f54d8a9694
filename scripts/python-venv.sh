#!/usr/bin/env bash
# Creates .venv-runner/ with the pinned packages of backend/src/engine/sandbox/runner-requirements.txt
# (langgraph, python-dotenv, pytest from PyPI), for the pytest suite of the sandbox runner.
# Idempotent: when the venv exists and was built from the same requirements file, it does nothing.
# PYTHON selects the interpreter (default python3, which must be 3.11 or newer).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV=.venv-runner
REQ=backend/src/engine/sandbox/runner-requirements.txt
STAMP="$VENV/.requirements.sha256"

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] &&
  "$VENV/bin/python" -c 'import langgraph, pytest, dotenv' >/dev/null 2>&1; then
  echo "Python venv for the runner is up to date ($VENV)"
  exit 0
fi

if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "The runner's tests need Python 3.11 or newer as '$PYTHON'." >&2
  exit 1
fi
# Debian's python3 lacks venv until python3-venv is installed.
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "Installing python3-venv"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  fi
fi

echo "Creating $VENV from $REQ"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
echo "$want" >"$STAMP"
echo "Python venv for the runner is ready ($("$VENV/bin/python" --version), langgraph $("$VENV/bin/python" -c 'from importlib.metadata import version; print(version("langgraph"))'))"
