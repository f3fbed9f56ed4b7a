"""Facts and checks shared by the host tests."""

from __future__ import annotations

import json

from hostshape.examples import payload_text

# Every pull request number of gh_pulls_list.json, the payload each host test asks its model to fetch.
PR_NUMBERS: list[int] = [p["number"] for p in json.loads(payload_text("gh_pulls_list.json"))]


def is_shaped(text: str) -> bool:
    """The text carries hostshape's envelope (JSON whose first key is ``_hostshape``, or a ``[hostshape]`` line)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return "[hostshape]" in text
    return isinstance(doc, dict) and next(iter(doc), None) == "_hostshape"
