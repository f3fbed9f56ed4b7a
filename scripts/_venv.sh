# Sourced by scripts/demo and scripts/test: create .venv at the repo root and install hostshape with its extras,
# pinned to the versions the test suite was run against (constraints.txt, made on Python 3.11). Where those pins
# cannot be installed (another Python version), install the newest versions the extras allow instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
pip_install() { .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@"; }
pip_install --upgrade pip
if ! pip_install -c constraints.txt -e ".[$1]" 2>/dev/null; then
  echo "note: the pinned versions in constraints.txt do not install on $(.venv/bin/python -V); using the newest allowed" >&2
  pip_install -e ".[$1]"
fi
