"""Fitting to a host's form: the text a host sends (``HostForm.wrap``) must fit the tool's budget and the host's
own caps. When the host's form outgrows them, the pipeline is run again with a smaller budget, divided by the
growth the form caused, until it fits; the host's note heads the text when there is room."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from hostshape.fit.budget import Limit
from hostshape.input.host_form import HostForm
from hostshape.output.envelope import HOST_FORM_TOO_BIG, refusal
from hostshape.policy import Policy
from hostshape.result import Shaped

# Re-shaping rounds when the host's form of the text overshoots a cap. Each round divides the budget by the growth
# the host's form caused (escaping grows text by a roughly constant ratio); one round sufficed on every corpus file.
MAX_ROUNDS = 4

ShapeWithin = Callable[[int, "int | None"], Shaped]


@dataclass(frozen=True)
class HostLimit:
    """Does this text fit the tool's budget and the host's caps, in the form the host sends it?"""

    limit: Limit
    host: HostForm

    def sent(self, text: str) -> str:
        return self.host.wrap(text) if self.host.wrap is not None else text

    def fits(self, text: str) -> bool:
        wire = self.sent(text)
        if self.host.max_chars is not None and len(wire) > self.host.max_chars:
            return False
        if self.host.max_bytes is not None and len(wire.encode("utf-8", "surrogatepass")) > self.host.max_bytes:
            return False
        return self.limit.fits(wire)


def fit_to_host(host: HostForm, shape_within: ShapeWithin, *, policy: Policy, budget: int) -> Shaped:
    """The answer whose text, in the form ``host`` sends it, fits ``budget`` (the tool's) and the host's caps; see
    ``HostForm``.

    ``shape_within(budget, chars)`` is the pipeline with a smaller budget and the host's character cap (less the
    host note's characters). The answer's ``changed`` is False only when the host's own result is left alone: it
    fits as the host shows it, or the policy says ``on_fault="pass"`` after a fault.
    """
    caps = HostLimit(Limit.of(policy, budget), host)
    note, reserve = _note(host.notes, policy, budget)
    chars = _chars(policy, host, len(note))
    first = shape_within(budget - reserve, chars)
    if _final(first, host, caps, note):
        return first

    shaped = first
    inner = budget - reserve
    for round_ in range(MAX_ROUNDS + 1):
        text = f"{note}\n{shaped.text}" if note else shaped.text
        if caps.fits(text):
            return dataclasses.replace(shaped, text=text, changed=True, truncated=shaped.truncated or bool(note))
        if note and caps.fits(shaped.text) and round_ == MAX_ROUNDS:
            return dataclasses.replace(shaped, changed=True, truncated=True)
        if round_ == MAX_ROUNDS:
            break
        inner = smaller_budget(inner, text, caps, policy, round_)
        shaped = shape_within(inner, chars)
    fault = HOST_FORM_TOO_BIG
    return dataclasses.replace(
        first, text=refusal(fault, caps.fits, first.tool), changed=True, truncated=True, strategy="refused", fault=fault
    )


def _final(first: Shaped, host: HostForm, caps: HostLimit, note: str) -> bool:
    """Whether the first answer goes to the host as it is: the policy failed open after a fault, the result fits
    as the host shows it (leave it alone), or there is no text to fit."""
    if first.fault is not None and not first.changed:
        return True
    if not first.changed and not host.replace and not note and (host.as_is is None or caps.fits(host.as_is)):
        return True
    return not first.text


def _note(notes: tuple[str, ...], policy: Policy, budget: int) -> tuple[str, int]:
    """The first note whose tokens (safety factor applied, +1 for the joining newline) leave half the budget."""
    if not notes:
        return "", 0
    limit = Limit.of(policy, budget)
    for note in notes:
        reserve = math.ceil(limit.count(note + "\n") * policy.safety_factor) + 1
        if reserve <= budget // 2:
            return note, reserve
    return "", 0


def smaller_budget(current: int, text: str, caps: HostLimit, policy: Policy, round_: int) -> int:
    """The next budget to try: the current one divided by how much the host's form outgrew the caps."""
    wire = caps.sent(text)
    limit = caps.limit
    # A budget above the tokens the text already uses gives the same text again (a character or byte cap, not the
    # budget, bounded it): start from what it uses, so that a larger budget never ends in a refusal.
    current = min(current, max(1, limit.count(text)))
    growth = max(limit.count(wire) / max(1, limit.tokens), 1.0)
    for cap, size in (
        (caps.host.max_chars, len(wire)),
        (caps.host.max_bytes, len(wire.encode("utf-8", "surrogatepass"))),
        (policy.max_chars, len(wire)),
    ):
        if cap is not None:
            growth = max(growth, size / cap)
    smaller = max(1, min(current - 1, int(current / growth) - 16 * (round_ + 1)))
    return max(1, smaller // 2) if round_ == MAX_ROUNDS - 2 else smaller  # the last rounds leave no doubt


def _chars(policy: Policy, host: HostForm, note_chars: int) -> int | None:
    """The character cap on the core's own text: the smallest of the policy's and the host's caps, less a note's
    characters (and its newline); None when there is no cap."""
    caps = [c for c in (policy.max_chars, host.max_chars, host.max_bytes) if c is not None]
    return max(1, min(caps) - (note_chars + 1 if note_chars else 0)) if caps else None
