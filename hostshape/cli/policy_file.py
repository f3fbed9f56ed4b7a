"""Which policy file a command uses: one rule for ``shape``, ``read``, ``measure``, ``demo`` and ``hook``.

First match wins:

1. ``--policy FILE`` on the command line;
2. ``$HOSTSHAPE_POLICY`` (a path; like the flag, it must exist);
3. ``.hostshape.toml`` in the project directory: the current directory (for ``hook``, ``$CLAUDE_PROJECT_DIR``
   when Claude Code sets it);
4. ``$XDG_CONFIG_HOME/hostshape/policy.toml`` (``~/.config/hostshape/policy.toml`` when the variable is unset or
   not absolute);
5. none: the defaults, ``Policy()``.

Imports only the standard library, so the hook's fast path stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hostshape.policy import Policy

ENV_VAR = "HOSTSHAPE_POLICY"
PROJECT_FILE = ".hostshape.toml"
USER_FILE = Path("hostshape") / "policy.toml"
RULE = (
    f"--policy FILE, else ${ENV_VAR}, else ./{PROJECT_FILE}, else $XDG_CONFIG_HOME/{USER_FILE.as_posix()} "
    f"(~/.config/{USER_FILE.as_posix()}), else the defaults"
)


def candidates(
    environ: Mapping[str, str] | None = None, project_dir: str | os.PathLike[str] | None = None
) -> list[Path]:
    """The files looked for when no ``--policy`` is given, in order (steps 2-4 of the rule)."""
    env = os.environ if environ is None else environ
    found: list[Path] = []
    if env.get(ENV_VAR):
        found.append(Path(env[ENV_VAR]).expanduser())
    found.append(Path(project_dir or os.getcwd()) / PROJECT_FILE)
    xdg = env.get("XDG_CONFIG_HOME")
    user_config = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    found.append(user_config / USER_FILE)
    return found


def find(
    flag: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
) -> Path | None:
    """The policy file to load, or None for the defaults. An explicit choice (the flag or ``$HOSTSHAPE_POLICY``) is
    returned even when it does not exist, so that loading it reports the mistake instead of silently using the
    defaults."""
    if flag:
        return Path(flag).expanduser()
    env = os.environ if environ is None else environ
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR]).expanduser()
    return next((p for p in candidates(env, project_dir) if p.is_file()), None)


def load(flag: str | os.PathLike[str] | None = None, budget: int | None = None) -> Policy:
    """The policy the rule finds (the defaults when it finds none), with ``budget`` when one is given. Raises
    ValueError naming the file when it cannot be read or is not a policy."""
    from hostshape.policy import Policy

    path = find(flag)
    try:
        policy = Policy.from_toml(path) if path else Policy()
    except (OSError, ValueError) as exc:
        raise ValueError(f"bad policy {str(path)!r}: {exc}") from exc
    return policy.replace(budget=budget) if budget else policy
