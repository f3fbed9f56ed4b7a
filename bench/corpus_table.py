"""Print the README's corpus table: each recorded payload's size and what hostshape sends at 4,000 tokens.

Run: .venv/bin/python bench/corpus_table.py
"""

from __future__ import annotations

import json
import tempfile

from hostshape import Policy, shape
from hostshape.examples import payload_names, payload_text
from hostshape.tokens import count_tokens


def main() -> None:
    policy = Policy(budget=4000, spill_dir=tempfile.mkdtemp())
    print("| payload | tokens | hostshape at 4,000 | kept | strategy |")
    print("|---|---:|---:|---|---|")
    for name in payload_names():
        raw = payload_text(name)
        result = shape(raw, policy=policy, tool=name)
        kept = "all (under budget)"
        if result.changed and result.is_json:
            env = json.loads(result.text).get("_hostshape", {})
            if "total" in env:
                listed = env.get("listed") or 0
                kept = f"{env['returned']} whole + {listed} indexed of {env['total']} records"
            else:
                kept = "object, largest members cut"
        elif result.changed:
            kept = result.text.rpartition("\n")[2].split(" handle=")[0].replace("[hostshape] ", "")
        print(f"| {name} | {count_tokens(raw):,} | {result.tokens:,} | {kept} | {result.strategy} |")


if __name__ == "__main__":
    main()
