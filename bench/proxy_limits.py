"""How ``hostshape proxy`` scales with what an upstream sends: time and peak memory of the proxy process.

The proxy runs as its own process in front of ``bench/proxy_raw_upstream.py`` (which writes exactly the bytes
asked for); this script talks JSON-RPC to the proxy over its stdin/stdout and reads the proxy's peak resident memory
(``VmHWM``) from ``/proc`` after the call. Cases: a tool result that is one long line (``line``), a text of
newlines (``newlines``), bare newlines on the upstream's stdout (``blank``). Linear means the seconds per MB stay
flat as the size grows.

Usage: ``python bench/proxy_limits.py [--sizes 8,16,32,64] [--cases line,newlines,blank] [--budget 1000]``
(Linux, for ``/proc``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one(case: str, megabytes: int, budget: int) -> tuple[float, float, int]:
    """(seconds for the call, peak MB of the proxy, tokens... bytes of the answer) for one case and size."""
    with tempfile.TemporaryDirectory() as folder:
        policy = Path(folder) / "policy.toml"
        policy.write_text(f'budget = {budget}\n[spill]\ndir = "{Path(folder, "spill").as_posix()}"\n')
        upstream = [sys.executable, str(HERE / "proxy_raw_upstream.py"), case, str(megabytes * 1_000_000)]
        argv = [sys.executable, "-m", "hostshape.cli", "proxy", "--policy", str(policy), "--", *upstream]
        proxy = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proxy.stdin is not None and proxy.stdout is not None

        def send(message: dict[str, object]) -> None:
            assert proxy.stdin is not None
            proxy.stdin.write(json.dumps(message).encode() + b"\n")
            proxy.stdin.flush()

        try:
            init = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            }
            send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
            proxy.stdout.readline()
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            started = time.perf_counter()
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "big", "arguments": {}}})
            answer = proxy.stdout.readline()
            seconds = time.perf_counter() - started
            peak = peak_mb(proxy.pid)
        finally:
            proxy.stdin.close()
            proxy.wait(timeout=60)
        return seconds, peak, len(answer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,16,32,64", help="MB, comma-separated")
    parser.add_argument("--cases", default="line,newlines,blank")
    parser.add_argument("--budget", type=int, default=1000)
    args = parser.parse_args()
    print("| case | MB | seconds | s/MB | proxy peak MB | answer bytes |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in args.cases.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            seconds, peak, answer = one(case, size, args.budget)
            print(f"| {case} | {size} | {seconds:.2f} | {seconds / size:.3f} | {peak:.0f} | {answer} |", flush=True)


if __name__ == "__main__":
    main()
