# Sourced by scripts/test and scripts/demo after scripts/_venv.sh: the environments of the hosts whose frameworks'
# pins cannot share .venv (pyproject.toml says why, above [all]).
#   host_env DIR EXTRAS CONSTRAINTS [GROUP...]   e.g.  host_env .venv-mcp2 all-mcp2 constraints-mcp2.txt test
# creates the venv DIR and installs hostshape editable with EXTRAS and the dependency groups, pinned to
# CONSTRAINTS (made on Python 3.11); where those pins cannot be installed, the newest versions the extras allow.
host_env() {
  local dir=$1 extras=$2 pins=$3
  shift 3
  local groups=()
  for group in "$@"; do groups+=(--group "$group"); done
  if [ ! -x "$dir/bin/python" ]; then
    python3 -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "pip>=25.1"
  if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -c "$pins" -e ".[$extras]" "${groups[@]}" \
      2>/dev/null; then
    echo "note: the pinned versions in $pins do not install on $("$dir/bin/python" -V); using the newest allowed" >&2
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[$extras]" "${groups[@]}"
  fi
}
