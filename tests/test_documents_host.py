"""A Markdown page and an HTML page through a real host (Pydantic AI: a real Agent, a scripted FunctionModel, the
real stdio MCP server): the model receives the outline, follows it with one ``section`` read and then a ``grep``,
and every text it receives fits the budget."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.mcp")

from hostshape import Policy
from hostshape.examples import payload_text
from hostshape.testing.pydantic_ai import Follow, run
from hostshape.tokens import count_tokens
from hostshape.wayback.retrieve import RETRIEVAL_TOOL

pytestmark = pytest.mark.host

HANDLE = re.compile(r"handle=(hs_[0-9a-f]{24})")


def reads_of(title: str, pattern: str) -> Follow:
    """The scripted model: after the first answer, read the section titled ``title``, then grep ``pattern``."""

    def follow(texts: list[str]) -> tuple[str, dict[str, Any]] | None:
        handle = HANDLE.search(texts[0].splitlines()[-1])
        assert handle, texts[0][-300:]
        if len(texts) == 1:
            return RETRIEVAL_TOOL, {"handle": handle.group(1), "section": title}
        if len(texts) == 2:
            return RETRIEVAL_TOOL, {"handle": handle.group(1), "grep": pattern}
        return None

    return follow


@pytest.mark.parametrize(
    ("tool", "arguments", "kind", "entry", "title", "content", "pattern"),
    [
        ("read_readme", {}, "markdown", "1.3.14 Admin Panels (L330-337", "Admin Panels", "django-unfold", "flask"),
        (
            "fetch",
            {"name": "v8_blog_standalone_wasm.html"},
            "html",
            "Running in Wasm runtimes (L",
            "Running in Wasm runtimes",
            "wasmtime",
            "wasi",
        ),
    ],
)
async def test_the_model_receives_the_outline_and_follows_it_with_a_section_read(
    tmp_path: Any, tool: str, arguments: dict[str, Any], kind: str, entry: str, title: str, content: str, pattern: str
) -> None:
    policy = Policy(budget=3000, spill_dir=tmp_path / "spill")
    shaped = await run(tool, policy=policy, arguments=arguments, follow=reads_of(title, pattern))
    first, section, grep = shaped.extra["texts"]
    assert first.startswith(f"{kind} document: ") and entry in first
    assert "<script" not in first and "query" not in first.splitlines()[-1]
    assert section.startswith(f"{kind} document, section ") and f"{title!r}" in section.splitlines()[0]
    assert content in section.lower()
    assert grep.startswith(f"grep '{pattern}'") and re.search(r"^\d+: ", grep, re.M)
    for text in (first, section, grep):
        assert count_tokens(text) <= policy.budget
    if kind == "markdown":
        lines = payload_text("awesome_python_README.md").splitlines()
        assert "\n".join(lines[329:337]).rstrip() in section
