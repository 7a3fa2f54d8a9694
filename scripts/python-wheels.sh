#!/usr/bin/env bash
# Downloads into .wheels-import/ the wheels of backend/src/engine/sandbox/import-wheel-requirements.txt
# and their dependencies, for imports installed without an index (STUDIO_IMPORT_WHEELS): the tests
# install fixture repositories with network `none` from it. Idempotent (a stamp of the requirements).
# PYTHON selects the interpreter whose pip downloads (default python3; the wheels must suit the
# sandbox's Python, 3.11 in the test image, the same as this machine's).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
DIR=.wheels-import
REQ=backend/src/engine/sandbox/import-wheel-requirements.txt
STAMP="$DIR/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  echo "Offline wheels for imports are up to date ($DIR)"
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR"
"$PYTHON" -m pip download --quiet --disable-pip-version-check --only-binary=:all: -d "$DIR" -r "$REQ"
echo "$want" >"$STAMP"
echo "Offline wheels for imports are ready ($DIR, $(ls "$DIR"/*.whl | wc -l) wheels)"
