"""Facts and checks shared by the host tests: the payload each host's model fetches, the budget check of that list,
the way back (``hostshape_read`` following ``next``) and a tool error longer than any budget."""

from __future__ import annotations

import json
from typing import Any

from hostshape import Rule
from hostshape.examples import payload_text
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens

# Every pull request number of gh_pulls_list.json, the payload each host test asks its model to fetch.
PR_NUMBERS: list[int] = [p["number"] for p in json.loads(payload_text("gh_pulls_list.json"))]

# The budget of the host tests' policies.
BUDGET = 2000
PAGED_BUDGET = 1500  # the pull requests fill more than one page at this budget, even as a table

# A tool error far over BUDGET whose first words must survive the cut.
LONG_ERROR = "upstream API returned 502: " + "stack frame in handler; " * 1_700


def is_shaped(text: str) -> bool:
    """The text carries hostshape's envelope (JSON whose first key is ``_hostshape``, or a ``[hostshape]`` line)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return "[hostshape]" in text
    return isinstance(doc, dict) and next(iter(doc), None) == "_hostshape"


def assert_pull_list_shaped(received: str, budget: int = BUDGET) -> dict[str, Any]:
    """What the model received is the pull request list, shaped (the envelope first), within ``budget``, with every
    pull request number in it; returns the parsed document."""
    assert count_tokens(received) <= budget
    shaped = json.loads(received)
    assert isinstance(shaped, dict) and next(iter(shaped)) == "_hostshape"
    for number in PR_NUMBERS:
        assert str(number) in received, f"PR #{number} is missing from what the model received"
    return shaped


def read_next_page(received: list[str]) -> tuple[str, dict[str, Any]] | None:
    """A scripted model's next call (``hostshape.testing.script.NextCall``): ``hostshape_read`` with the first
    result's handle and the latest page's ``next`` cursor, until a page has no ``next``."""
    envelope = json.loads(received[-1])["_hostshape"]
    if not envelope.get("next"):
        return None
    handle = json.loads(received[0])["_hostshape"]["handle"]
    return "hostshape_read", {"handle": handle, "cursor": envelope["next"]}


def assert_pages_hold_every_pull_request_once(pages: list[str], budget: int = BUDGET) -> None:
    """Following ``next`` from the first page gave more than one page, each within ``budget``, the first naming
    ``hostshape_read``, and every pull request exactly once, to the last page."""
    assert len(pages) > 1 and "hostshape_read" in json.loads(pages[0])["_hostshape"]["hint"]
    seen: list[int] = []
    for page in pages:
        assert count_tokens(page) <= budget
        doc = json.loads(page)
        items = as_records(doc["items"]) if "items" in doc else [{k: v for k, v in doc.items() if k != "_hostshape"}]
        seen += [item["number"] for item in items]
    assert sorted(seen) == sorted(PR_NUMBERS)


def projection_rule(server: str) -> Rule:
    """A rule for ``list_pull_requests`` on ``server`` keeping number and title, at 1,200 tokens."""
    return Rule(tool="list_pull_requests", server=server, fields=("number", "title"), budget=1200)


def assert_projected(received: str) -> None:
    """The model received the list as ``projection_rule`` projects it: within its budget, links gone, every number."""
    assert count_tokens(received) <= 1200 and "html_url" not in received
    for number in PR_NUMBERS:
        assert str(number) in received, f"PR #{number} is missing from what the model received"


def shown_records(doc: Any) -> list[Any]:
    """The records a shaped JSON answer shows whole: the document itself when it is a list, else its one record
    member (a list, or a table read back with ``as_records``), beside the envelope and the ``_index``."""
    if isinstance(doc, list):
        return doc
    members = [as_records(v) for k, v in doc.items() if k not in ("_hostshape", "_index")]
    lists = [member for member in members if isinstance(member, list)]
    assert len(lists) == 1, f"no single record list in {list(doc)}"
    return lists[0]
