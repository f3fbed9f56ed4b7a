# Sourced by scripts/demo and scripts/test: create .venv at the repo root and install hostshape with its extras,
# pinned to the versions the test suite was run against (constraints.txt).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[$1]"
