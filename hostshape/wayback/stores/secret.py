"""The key that signs handles and cursors: shared by the workers, never kept in the store itself.

First match wins: ``Policy.spill_secret_file`` (TOML ``[spill] secret_file``), then ``$HOSTSHAPE_SPILL_SECRET`` (the
secret itself), then none: the local spill folder's own random ``.secret`` (valid on this machine only). The store
signs with a key derived from that secret and the tenant (``Policy.spill_tenant``), so a handle or cursor made
under another secret or for another tenant is refused, and the namespace the records live under differs too.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

from hostshape.wayback.spill import SpillError

SECRET_ENV = "HOSTSHAPE_SPILL_SECRET"
MIN_SECRET_BYTES = 16


def shared_secret(secret_file: Path | None, environ: dict[str, str] | None = None) -> bytes | None:
    """The workers' shared secret, or None when none is configured. Raises SpillError for a secret file that
    cannot be read, is readable by other users, or a secret shorter than MIN_SECRET_BYTES."""
    env = os.environ if environ is None else environ
    if secret_file is not None:
        try:
            with open(secret_file, "rb") as f:
                if os.fstat(f.fileno()).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
                    raise SpillError(f"{secret_file} is readable by other users: chmod 600 it")
                secret = f.read(4096).strip()
        except OSError as exc:
            if isinstance(exc, SpillError):
                raise
            raise SpillError(f"cannot read the spill secret file {secret_file}: {exc.strerror or exc}") from exc
    elif env.get(SECRET_ENV):
        secret = env[SECRET_ENV].strip().encode("utf-8", "replace")
    else:
        return None
    if len(secret) < MIN_SECRET_BYTES:
        raise SpillError(f"the spill secret is shorter than {MIN_SECRET_BYTES} bytes")
    return secret


def derive(master: bytes, tenant: str | None) -> bytes:
    """The signing key of ``tenant`` under ``master``."""
    return hmac.new(master, b"hostshape spill key\0" + (tenant or "").encode("utf-8"), hashlib.sha256).digest()


def namespace(key: bytes) -> str:
    """A public name for the records of one derived key (one-way: it reveals nothing about the key)."""
    return "k" + hashlib.sha256(b"hostshape namespace\0" + key).hexdigest()[:16]
