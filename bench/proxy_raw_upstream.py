"""A minimal stdio MCP server for ``bench/proxy_limits.py``: answers ``initialize``, ``tools/list`` and
``tools/call`` by hand (no SDK), so the bench controls the exact bytes the proxy reads.

``python bench/proxy_raw_upstream.py MODE SIZE``: the tool ``big`` answers with SIZE bytes of
``line`` one JSON string on one line (no newline inside), ``newlines`` a text of SIZE newline characters, or
``blank`` SIZE bytes of bare newlines on stdout before a small answer.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    mode, size = sys.argv[1], int(sys.argv[2])
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": [{"name": "big", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            if mode == "blank":
                out.write(b"\n" * size)
                text = "small answer"
            else:
                text = ("x" * size) if mode == "line" else ("\n" * size)
            result = {"content": [{"type": "text", "text": text}]}
        else:
            result = {}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
