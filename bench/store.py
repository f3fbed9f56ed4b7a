"""The cost of the way back per spill store, beside the local folder, in one run.

For each backend: the median time of one ``save`` of a recorded payload (a new handle each time), of one raw
``load`` by handle, and of one ``hostshape_read`` page (load, parse, fit to the budget), timed round-robin
(bench/measure.py) so the ratios hold on a busy machine. Real servers on loopback, started here
(hostshape/testing/store_servers.py): redis-server and an S3-compatible endpoint (``rclone serve s3``); a backend
whose server or client is missing is listed as skipped.

    python bench/store.py                      # gh_pulls_list.json, budget 4000
    python bench/store.py --payload gh_issues_list.json --budget 2000 --runs 15
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import median_seconds
from hostshape.examples import payload_text
from hostshape.policy import Policy
from hostshape.testing.store_servers import Server, start_redis, start_s3
from hostshape.wayback.stores import Store, open_store, page
from hostshape.wayback.stores.secret import SECRET_ENV

SECRET = "bench secret shared by the workers, 32+ bytes"


def backends(folder: Path, servers: list[Server]) -> dict[str, Callable[[], Store]]:
    """Each backend's name and how to open it (the servers it starts are appended to ``servers``)."""

    def redis() -> Store:
        server = start_redis(folder / "redis")
        servers.append(server)
        return open_store(Policy(spill_url=server.url))

    def s3() -> Store:
        server = start_s3(folder / "s3")
        servers.append(server)
        os.environ.update(server.env)
        return open_store(Policy(spill_url=server.url))

    def langgraph() -> Store:
        from langgraph.store.memory import InMemoryStore

        from hostshape.wayback.stores.frameworks import langgraph_store

        return langgraph_store(Policy(spill_dir=folder / "lg"), InMemoryStore())

    return {
        "local folder": lambda: open_store(Policy(spill_dir=folder / "local")),
        "local folder, shared secret": lambda: open_store(Policy(spill_url=str(folder / "shared"))),
        "redis (loopback)": redis,
        "s3 (rclone serve s3, loopback)": s3,
        "fsspec memory://": lambda: open_store(Policy(spill_url=f"memory://hostshape-bench/{folder.name}")),
        "langgraph InMemoryStore": langgraph,
    }


def measure(payload: str, budget: int, runs: int) -> dict[str, Any]:
    text = payload_text(payload)
    os.environ[SECRET_ENV] = SECRET
    servers: list[Server] = []
    rows: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="hostshape-bench-store-") as tmp:
        try:
            stores: dict[str, Store] = {}
            for name, opener in backends(Path(tmp), servers).items():
                try:
                    stores[name] = opener()
                except Exception as exc:  # noqa: BLE001 - a missing server or client skips that backend
                    skipped[name] = f"{type(exc).__name__}: {exc}"
            counter = itertools.count()
            handles = {
                name: store.save("bench", {"n": -1}, text, is_json=True).handle for name, store in stores.items()
            }
            policy = Policy(budget=budget, retrieval_tool="hostshape_read")

            def save(store: Store) -> None:
                store.save("bench", {"n": next(counter)}, text, is_json=True)

            def load(name: str) -> None:
                assert stores[name].load(handles[name]) is not None

            def read_page(name: str) -> None:
                assert page(stores[name], handles[name], policy=policy).startswith("{")

            names = list(stores)
            calls: list[tuple[Callable[[Any], Any], Any]] = []
            for name in names:
                calls += [(save, stores[name]), (load, name), (read_page, name)]
            times = median_seconds(calls, runs)
        finally:
            for server in servers:
                server.stop()
    base = dict(zip(("save", "load", "page"), times[:3], strict=True))
    for i, name in enumerate(names):
        save_s, load_s, page_s = times[3 * i : 3 * i + 3]
        rows.append(
            {
                "backend": name,
                "save_ms": round(save_s * 1000, 3),
                "load_ms": round(load_s * 1000, 3),
                "page_ms": round(page_s * 1000, 3),
                "save_x": round(save_s / base["save"], 2),
                "load_x": round(load_s / base["load"], 2),
                "page_x": round(page_s / base["page"], 2),
            }
        )
    return {
        "payload": payload,
        "bytes": len(text.encode()),
        "budget": budget,
        "runs": runs,
        "rows": rows,
        "skipped": skipped,
    }


def render(result: dict[str, Any]) -> str:
    lines = [
        f"{result['payload']} ({result['bytes']:,} bytes), page budget {result['budget']}, "
        f"median of >= {result['runs']} round-robin runs; x = ratio to the local folder",
        "",
        "| backend | save ms | x | load ms | x | page ms | x |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['backend']} | {r['save_ms']:.2f} | {r['save_x']:.2f} | {r['load_ms']:.2f} | {r['load_x']:.2f} "
            f"| {r['page_ms']:.2f} | {r['page_x']:.2f} |"
        )
    lines += [f"- skipped {name}: {why}" for name, why in result["skipped"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--payload", default="gh_pulls_list.json", help="a recorded payload in hostshape/examples")
    parser.add_argument("--budget", type=int, default=4000, help="the page's token budget")
    parser.add_argument("--runs", type=int, default=9, help="minimum round-robin runs")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = measure(args.payload, args.budget, args.runs)
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
