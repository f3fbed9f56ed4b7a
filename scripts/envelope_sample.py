"""Print the README's envelope sample: what `hostshape shape PAYLOAD --budget 1500 --tool list_issues` gives the
model for a recorded issue list, the envelope in full and each record list shortened to its first entry (run by
scripts/readme.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = "hostshape/examples/payloads/gh_issues_list.json"


def shortened(value: Any) -> Any:
    """Lists cut to their first entry plus a count of the rest (an index keeps its field names), long strings to 60
    characters."""
    if isinstance(value, list):
        rest = [f"... {len(value) - 1} more"] if len(value) > 1 else []
        return [shortened(v) for v in value[:1]] + rest
    if isinstance(value, dict):
        return {k: v if k == "fields" else shortened(v) for k, v in value.items()}
    if isinstance(value, str) and len(value) > 60:
        return value[:57] + "..."
    return value


def main() -> int:
    done = subprocess.run(
        [sys.executable, "-m", "hostshape", "shape", PAYLOAD, "--budget", "1500", "--tool", "list_issues"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(done.stdout)
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    envelope = [f'  "{k}":{json.dumps(v, **compact)}' for k, v in doc["_hostshape"].items()]  # type: ignore[arg-type]
    rest = [f' "{k}":{json.dumps(shortened(v), **compact)}' for k, v in doc.items() if k != "_hostshape"]  # type: ignore[arg-type]
    print('{"_hostshape":{\n' + ",\n".join(envelope) + "},\n" + ",\n".join(rest) + "}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
