# Sourced by scripts/demo and scripts/test: create .venv at the repo root and install hostshape editable with the
# extras in $1 and the development dependency groups (pyproject.toml [dependency-groups]) named after it, pinned to
# the versions the test suite was run against (constraints.txt, made on Python 3.11). Where those pins cannot be
# installed (another Python version), install the newest versions the extras allow instead.
# Usage: source scripts/_venv.sh EXTRAS [GROUP...]   e.g.  source scripts/_venv.sh all test bench
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# .ci/run installs .venv before it starts scripts/test, and says with which arguments: a second pip run (an index
# round trip, a resolve, an editable rebuild) before the tests would change nothing.
if [ "${HOSTSHAPE_VENV_INSTALLED:-}" = "$*" ] && [ -x .venv/bin/python ]; then
  return 0
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
pip_install() { .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@"; }
pip_install --upgrade "pip>=25.1"  # 25.1 is the first pip that installs dependency groups (--group)
groups=()
for group in "${@:2}"; do groups+=(--group "$group"); done
if ! pip_install -c constraints.txt -e ".[$1]" "${groups[@]}" 2>/dev/null; then
  echo "note: the pinned versions in constraints.txt do not install on $(.venv/bin/python -V); using the newest allowed" >&2
  pip_install -e ".[$1]" "${groups[@]}"
fi
