"""What to shape and how: the budget, per-tool rules, the tokenizer, the spill store and the fault behaviour.

A ``Policy`` is immutable; ``policy.replace(...)`` gives a changed copy. ``Policy.from_toml(path)`` reads the same
fields from a TOML file (see the README for the format).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

OnFault = Literal["cut", "refuse", "pass"]
ON_FAULT = ("cut", "refuse", "pass")

DEFAULT_BUDGET = 4000
DEFAULT_SPILL_MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Rule:
    """A projection for the tools whose name (and server, if given) match these globs.

    Give at most one of ``jmespath`` (an expression applied to the parsed result) or ``fields`` (dotted paths kept
    from each record, renamed through ``rename``). A rule with neither only changes the budget. ``shrink=False``
    turns off the zero-configuration shrink for matching tools.
    """

    tool: str = "*"
    server: str | None = None
    jmespath: str | None = None
    fields: tuple[str, ...] | None = None
    rename: Mapping[str, str] = field(default_factory=dict)
    budget: int | None = None
    shrink: bool = True

    def __post_init__(self) -> None:
        if self.jmespath is not None and self.fields is not None:
            raise ValueError(f"rule for {self.tool!r}: give jmespath or fields, not both")
        if self.budget is not None and (not _is_int(self.budget) or self.budget < 1):
            raise ValueError(f"rule for {self.tool!r}: budget must be a positive number of tokens, not {self.budget!r}")
        if self.fields is not None and not isinstance(self.fields, tuple):
            object.__setattr__(self, "fields", tuple(self.fields))
        if self.jmespath is not None:
            import jmespath

            jmespath.compile(self.jmespath)  # fail at configuration time, not at the first tool call

    def matches(self, tool: str, server: str | None) -> bool:
        """True when this rule applies to ``tool`` on ``server``."""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        return self.server is None or (server is not None and fnmatch.fnmatchcase(server, self.server))


@dataclass(frozen=True)
class Policy:
    """Everything the pipeline needs to turn one tool result into the text a model reads.

    - ``budget``: hard cap in tokens of the exact final text, envelope included.
    - ``encoding``: ``o200k_base`` (default) or ``cl100k_base``.
    - ``safety_factor``: multiply counted tokens by this before comparing with the budget (1.3 for Claude models,
      whose tokenizer runs about 30% above o200k on the same text).
    - ``max_chars``: an extra cap in characters, for hosts that also limit length (Claude Code: 50,000).
    - ``rules``: per-tool projections; the first matching rule wins.
    - ``spill_dir`` / ``spill_max_bytes``: where full originals are saved when anything is cut (default: a private
      folder under the user's cache directory) and the total size kept before the oldest are evicted.
      ``spill=False`` turns saving off (the envelope then says the rest is not retrievable).
    - ``spill_url``: a shared store instead of the folder (``redis://host:6379/0``, ``s3://bucket/prefix``, any
      fsspec URL; ``$HOSTSHAPE_SPILL_URL`` when unset); ``spill_secret_file``: the file holding the secret the
      workers share (``$HOSTSHAPE_SPILL_SECRET`` when unset); ``spill_tenant``: a name whose handles and cursors
      no other tenant's worker accepts; ``spill_ttl_s``: how long a saved result is kept (default: one day in a
      shared store, no expiry in the folder). See docs/stores.md.
    - ``on_fault``: when hostshape itself fails. ``"cut"`` (the default) answers within the budget with the start
      of the result's text and a note that shaping failed, the full original saved for retrieval; ``"refuse"``
      returns a short refusal with a remedy (fail closed); ``"pass"`` leaves the host's result untouched (fail
      open: the budget is then NOT kept, an explicit opt-in). Every fault is logged.
    - ``keep_binary``: keep base64 images and blobs instead of a labelled placeholder.
    - ``retrieval_tool``: the name of the retrieval tool the host offers, for the envelope's hint; set by the
      adapters' ``install`` helpers.
    """

    budget: int = DEFAULT_BUDGET
    encoding: str = "o200k_base"
    safety_factor: float = 1.0
    max_chars: int | None = None
    rules: tuple[Rule, ...] = ()
    spill: bool = True
    spill_dir: Path | None = None
    spill_max_bytes: int = DEFAULT_SPILL_MAX_BYTES
    spill_url: str | None = None
    spill_secret_file: Path | None = None
    spill_tenant: str | None = None
    spill_ttl_s: float | None = None
    on_fault: OnFault = "cut"
    keep_binary: bool = False
    retrieval_tool: str | None = None

    def __post_init__(self) -> None:
        """Refuse values that would make every call fault or the budget meaningless, naming the field."""
        for name, valid, wanted in _FIELD_CHECKS:
            if not valid(getattr(self, name)):
                raise ValueError(f"{name} must be {wanted}, not {getattr(self, name)!r}")
        if isinstance(self.rules, (str, bytes, Rule)) or not isinstance(self.rules, (tuple, list)):
            raise ValueError(f"rules must be a sequence of Rule, not {type(self.rules).__name__}")
        object.__setattr__(self, "rules", tuple(self.rules))
        for rule in self.rules:
            if not isinstance(rule, Rule):
                raise ValueError(f"rules must hold Rule objects, not {type(rule).__name__}")
        for name in ("spill_dir", "spill_secret_file"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), Path):
                object.__setattr__(self, name, Path(getattr(self, name)))
        for name in ("spill_url", "spill_tenant"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a string or None, not {getattr(self, name)!r}")
        ttl = self.spill_ttl_s
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not ttl > 0):
            raise ValueError(f"spill_ttl_s must be a positive number of seconds or None, not {ttl!r}")
        from hostshape.tokens import ENCODINGS

        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, not {self.encoding!r}")

    def replace(self, **changes: Any) -> Policy:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)

    def rule_for(self, tool: str | None, server: str | None = None) -> Rule | None:
        """The first rule matching ``tool`` on ``server`` (an unnamed tool matches only ``"*"``), or None."""
        return next((r for r in self.rules if r.matches(tool or "", server)), None)

    def budget_for(self, tool: str | None, server: str | None = None) -> int:
        """The token budget for one tool: its rule's budget when set, else the policy's."""
        rule = self.rule_for(tool, server)
        return rule.budget if rule is not None and rule.budget is not None else self.budget

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Policy:
        """Read a policy from a TOML file; unknown keys raise ValueError naming them."""
        with open(path, "rb") as f:
            data = tomllib.load(f)
        return cls.from_mapping(data)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Policy:
        """Build a policy from plain data (the parsed TOML)."""
        data = dict(data)
        spill = data.pop("spill", None)
        if isinstance(spill, Mapping):
            spill = dict(spill)
            data["spill"] = spill.pop("enabled", True)
            if "dir" in spill:
                data["spill_dir"] = Path(os.path.expanduser(spill.pop("dir")))
            if "max_bytes" in spill:
                data["spill_max_bytes"] = spill.pop("max_bytes")
            if "secret_file" in spill:
                data["spill_secret_file"] = Path(os.path.expanduser(spill.pop("secret_file")))
            for key in ("url", "tenant", "ttl_s"):
                if key in spill:
                    data[f"spill_{key}"] = spill.pop(key)
            if spill:
                raise ValueError(f"unknown [spill] keys: {', '.join(sorted(spill))}")
        elif spill is not None:
            data["spill"] = bool(spill)
        rules = tuple(_rule_from_mapping(r) for r in data.pop("rules", ()))
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown policy keys: {', '.join(sorted(unknown))}")
        return cls(rules=rules, **data)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_factor(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value >= 1.0


# (field, valid, what it must be), checked in this order by Policy.__post_init__.
_FIELD_CHECKS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("budget", lambda v: _is_int(v) and v >= 1, "a positive number of tokens"),
    ("safety_factor", _is_factor, "a finite number >= 1.0"),
    ("on_fault", lambda v: v in ON_FAULT, f"one of {', '.join(map(repr, ON_FAULT))}"),
    ("max_chars", lambda v: v is None or (_is_int(v) and v >= 1), "a positive number of characters or None"),
    ("spill_max_bytes", lambda v: _is_int(v) and v >= 0, "a number of bytes >= 0"),
    ("spill", lambda v: isinstance(v, bool), "True or False"),
    ("keep_binary", lambda v: isinstance(v, bool), "True or False"),
    ("retrieval_tool", lambda v: v is None or isinstance(v, str), "a tool name or None"),
)


def _rule_from_mapping(data: Mapping[str, Any]) -> Rule:
    data = dict(data)
    known = {f.name for f in dataclasses.fields(Rule)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown rule keys: {', '.join(sorted(unknown))}")
    if "fields" in data and data["fields"] is not None:
        data["fields"] = tuple(data["fields"])
    return Rule(**data)
