"""The pipeline: unwrap -> parse -> project -> fit -> render, for one tool result under one policy.

``shape`` never raises. A result that already fits (and has no configured projection) is left as the host made
it; anything else comes back as text that fits the budget exactly, with an envelope saying what was cut, and the
full original saved to the spill store so it can be retrieved. A fault inside any step is logged and answered per
``policy.on_fault``: by default a plain cut within the budget (hostshape/fault.py), never the raw result unless
the policy opts in with ``"pass"``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from hostshape import telemetry
from hostshape.fault import after_fault
from hostshape.fit import Cursor, Fitted, clean, fit_data, fit_object, fit_text, last_resort, narrow_wide, no_cursor
from hostshape.fit.budget import Limit
from hostshape.host import HostForm, shape_for_host
from hostshape.input.unwrap import Payload, unwrap
from hostshape.output.envelope import Facts, WayBack
from hostshape.output.render import NotExact, dumps
from hostshape.policy import Policy
from hostshape.records.locate import records_from_text
from hostshape.records.project import project, surrogate_note
from hostshape.result import Shaped
from hostshape.wayback.cursor import Position, encode
from hostshape.wayback.spill import SpillError, store_for

log = logging.getLogger("hostshape")

_DEFAULT = Policy()


def shape(
    raw: Any,
    *,
    policy: Policy | None = None,
    tool: str | None = None,
    server: str | None = None,
    args: Mapping[str, Any] | None = None,
    host: HostForm | None = None,
) -> Shaped:
    """Shape one tool result for the model. Never raises; see ``Shaped`` for what comes back.

    ``host`` says what the host shows the model and how it sends the replacement (``hostshape.host.HostForm``):
    the budget then holds for the text in that form, within the host's caps, headed by a host note when given.
    """
    policy = policy or _DEFAULT
    if host is None:
        result = _shape_once(raw, policy, tool, server, args)
    else:
        try:
            result = shape_for_host(raw, host, _shape_once, policy=policy, tool=tool, server=server, args=args)
        except Exception as exc:  # noqa: BLE001 - hostshape must never crash its host
            result = after_fault(raw, policy, exc, tool=tool, server=server, args=args)
    telemetry.record(result)
    return result


def _shape_once(
    raw: Any, policy: Policy, tool: str | None, server: str | None, args: Mapping[str, Any] | None
) -> Shaped:
    """``shape`` under one policy, without a host form or telemetry. Never raises."""
    started = time.perf_counter()
    try:
        result = _shape(raw, policy, tool, server, args, started)
    except Exception as exc:  # noqa: BLE001 - hostshape must never crash its host
        try:
            result = after_fault(raw, policy, exc, tool=tool, server=server, args=args, started=started)
        except Exception:  # noqa: BLE001 - not even the fault could be described
            log.critical("hostshape could not report a fault for %s", tool, exc_info=True)
            passing = policy.on_fault == "pass"  # else the shortest answer, which fits any budget
            result = Shaped(
                text="" if passing else "…",
                changed=not passing,
                is_json=False,
                bytes_before=0,
                budget=policy.budget,
                truncated=not passing,
                strategy="fault",
                fault="unreportable fault",
            )
    return result


def _shape(
    raw: Any, policy: Policy, tool: str | None, server: str | None, args: Mapping[str, Any] | None, started: float
) -> Shaped:
    budget = policy.budget_for(tool, server)
    limit = Limit.of(policy, budget)
    payload = unwrap(raw, keep_binary=policy.keep_binary)
    rule = policy.rule_for(tool, server)
    configured = rule is not None and (rule.jmespath is not None or rule.fields is not None)

    def done(
        text: str, *, changed: bool, strategy: str, fitted: Fitted | None = None, way: WayBack | None = None
    ) -> Shaped:
        return Shaped(
            text=text,
            changed=changed,
            is_json=payload.looks_json,
            bytes_before=len(payload.text.encode("utf-8")),
            budget=budget,
            # A placeholder standing for binary content (payload.opaque) is a cut too.
            truncated=bool(fitted and fitted.facts.cut) or (changed and payload.opaque),
            strategy=strategy,
            tool=tool,
            server=server,
            handle=way.handle if way else None,
            path=way.path if way else None,
            is_error=payload.is_error,
            elapsed_ms=(time.perf_counter() - started) * 1000,
            encoding=policy.encoding,
            input_text=payload.text,
        )

    if (not configured or payload.is_error or not payload.is_data) and not payload.opaque and limit.fits(payload.text):
        return done(payload.text, changed=False, strategy="passthrough")
    if payload.is_data and not configured:
        compact = _exact_json(payload.value)
        if compact is not None and len(compact) < len(payload.text) * 0.9 and limit.fits(compact):
            return done(compact, changed=True, strategy="compact")

    way = _way_back(payload, policy, tool, args)
    cursor = _cursor_factory(policy, way, rule.jmespath if configured and rule is not None else None)
    facts = Facts(notes=list(payload.notes))
    replaced = surrogate_note(payload.text) if payload.is_data else None
    if replaced:
        facts.notes.append(replaced)
        facts.replaced = True
    table = records_from_text(payload.text) if not payload.is_data and not payload.is_error else None
    if payload.is_data and not payload.is_error:
        value, hidden = narrow_wide(payload.value, len(payload.text), limit)
        if hidden:
            facts.truncated = True
            facts.notes.append(f"{hidden:,} members of objects too wide for the budget not shown")
        projection = project(
            value, rule, allow_shrink=rule.shrink if rule is not None else True, max_records=limit.tokens + 1
        )
        projection.report(facts)
        fitted = fit_data(projection.value, facts, limit, way, cursor, records_at=projection.path)
    elif table is not None:  # JSON lines or CSV: records, shaped as a record list, paged and queried as its rows
        facts.notes.append(table[1])
        projection = project(table[0], None, allow_shrink=True, max_records=limit.tokens + 1)
        projection.report(facts)
        fitted = fit_data(projection.value, facts, limit, way, cursor, records_at=projection.path)
    elif payload.looks_json and payload.parse_error:
        facts.notes.append(f"not valid JSON ({payload.parse_error}); shown as text")
        fitted = fit_object({"text": payload.text[: limit.tokens * 8]}, facts, limit, way)
    else:
        if payload.is_error:
            facts.notes.append("the tool reported an error")
        fitted = fit_text(clean(payload.text), facts, limit, way, cursor)
    if not limit.fits(fitted.text):  # the cap is absolute, whatever went wrong above
        fitted = last_resort(payload.looks_json, way, limit, facts)
    return done(fitted.text, changed=True, strategy=fitted.strategy, fitted=fitted, way=way)


def _exact_json(value: Any) -> str | None:
    """Compact JSON of ``value`` when it renders without replacements, else None."""
    try:
        return dumps(value, exact=True)
    except NotExact:
        return None


def _way_back(payload: Payload, policy: Policy, tool: str | None, args: Mapping[str, Any] | None) -> WayBack:
    if not policy.spill:
        return WayBack(reason="spill is off")
    try:
        store = store_for(policy.spill_dir, policy.spill_max_bytes)
        saved = store.save(tool, dict(args or {}), payload.text, is_json=payload.is_data)
    except (SpillError, OSError) as exc:
        log.warning("hostshape could not save the full result: %s", exc)
        return WayBack(reason="the spill folder is not usable")
    return WayBack(handle=saved.handle, path=str(saved.path), tool=policy.retrieval_tool)


def _cursor_factory(policy: Policy, way: WayBack, query: str | None) -> Cursor:
    if not (way.handle and way.tool):
        return no_cursor
    secret = store_for(policy.spill_dir, policy.spill_max_bytes).secret
    handle = way.handle
    return lambda offset: encode(secret, Position(handle, query, offset))
