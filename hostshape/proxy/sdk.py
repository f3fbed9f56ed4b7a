"""The few places where the ``mcp`` SDK's 1.x and 2.x APIs differ for the proxy, behind one interface.

Everything else in ``hostshape/proxy/`` works on MCP's wire form (plain dicts, as ``model_dump(by_alias=True)``
gives it, the same in both), so shaping, routing and policy are shared. What differs:

- the message unions: 1.x wraps them in pydantic ``RootModel`` classes (``types.ClientRequest(...)``,
  ``message.root``); 2.x declares them as plain unions of the concrete models (mcp_types, ``ClientRequest =
  PingRequest | ...``), so a concrete model is sent as it is and a union is parsed with a ``TypeAdapter``;
- the error class (``McpError(ErrorData)`` in 1.x, ``MCPError(code, message, data)`` in 2.x,
  mcp/shared/exceptions.py:19) and the timeout code (408 in 1.x's shared/session.py, ``REQUEST_TIMEOUT`` -32001
  in 2.x's shared/jsonrpc_dispatcher.py:333);
- a read timeout is a ``timedelta`` in 1.x and seconds in 2.x (mcp/client/session.py:544);
- the low-level server (``server_v1`` and ``server_v2``).
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from importlib.metadata import version
from typing import Any

from hostshape.adapters._shared import require

SUPPORTED = ("1", "2")  # the mcp SDK major versions the proxy is built for


def require_mcp() -> None:
    """Raise ImportError unless an ``mcp`` SDK the proxy supports (1.x or 2.x) is importable."""
    require("proxy", "mcp")
    if major() not in SUPPORTED:
        raise ImportError(
            f"hostshape proxy supports the mcp SDK 1.x and 2.x, found {version('mcp')}: pip install 'mcp>=1.20,<3'"
        )


@cache
def major() -> str:
    return version("mcp").split(".", 1)[0]


def v2() -> bool:
    return major() == "2"


def error_class() -> type[Exception]:
    """The exception the SDK raises for a JSON-RPC error (its ``.error`` is the ``ErrorData``)."""
    from mcp.shared import exceptions

    return exceptions.MCPError if v2() else exceptions.McpError  # type: ignore[attr-defined]


def mcp_error(code: int, message: str, data: Any = None) -> Exception:
    """A JSON-RPC error to raise from a handler."""
    from mcp import types
    from mcp.shared import exceptions

    if v2():
        return exceptions.MCPError(code, message, data)  # type: ignore[attr-defined]
    return exceptions.McpError(types.ErrorData(code=code, message=message, data=data))


def timeout_code() -> int:
    """The error code of a request whose read timeout expired."""
    from mcp import types

    return int(types.REQUEST_TIMEOUT) if v2() else 408  # type: ignore[attr-defined]


def read_timeout(seconds: float) -> Any:
    return seconds if v2() else timedelta(seconds=seconds)


def wire(model: Any) -> dict[str, Any]:
    """A model's wire form (camelCase keys, no nulls), without a JSON-RPC envelope kept as extra fields."""
    data: dict[str, Any] = unwrap(model).model_dump(by_alias=True, mode="json", exclude_none=True)
    data.pop("jsonrpc", None)
    return data


def unwrap(message: Any) -> Any:
    """The concrete model inside a 1.x union ``RootModel`` (2.x has none)."""
    return message if v2() else getattr(message, "root", message)


def client_request(data: dict[str, Any]) -> Any:
    """A request for the upstream from its wire form, as ``ClientSession.send_request`` takes it."""
    return _parse("ClientRequest", data)


def client_notification(model: Any) -> Any:
    from mcp import types

    return model if v2() else types.ClientNotification(model)


def server_request(model: Any) -> Any:
    from mcp import types

    return model if v2() else types.ServerRequest(model)


def server_notification(data: dict[str, Any]) -> Any:
    """A notification for the client from its wire form, as ``ServerSession.send_notification`` takes it."""
    return _parse("ServerNotification", data)


def _parse(union: str, data: dict[str, Any]) -> Any:
    from mcp import types

    kind = getattr(types, union)
    if v2():
        return _adapter(kind).validate_python(data, by_name=False)
    return kind.model_validate(data)


@cache
def _adapter(kind: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(kind)


def json_rpc_message(text: str) -> Any:
    """One line of JSON-RPC from the upstream, parsed (raises ValueError when it is not JSON-RPC)."""
    from mcp import types

    if v2():
        return _adapter(types.JSONRPCMessage).validate_json(text, by_name=False)
    return types.JSONRPCMessage.model_validate_json(text)
