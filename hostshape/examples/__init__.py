"""Real recorded tool payloads shipped with hostshape, for the demo, the notebooks and the tests.

Each file's origin is in ``PROVENANCE.md`` beside this module. ``TOOLS`` maps the example MCP server's
tool names to the payload each returns.
"""

from __future__ import annotations

from pathlib import Path

PAYLOADS = Path(__file__).parent / "payloads"

TOOLS: dict[str, str] = {
    "list_pull_requests": "gh_pulls_list.json",
    "list_commits": "gh_commits_list.json",
    "list_issues": "gh_issues_list.json",
    "search_issues": "gh_search_issues.json",
    "get_pull_request_files": "gh_pull_files_patches.json",
    "get_file_contents": "gh_file_contents_base64.json",
    "list_issues_small": "octokit_issues_page1.json",
    "read_readme": "awesome_python_README.md",
    "git_diff": "git_diff_github3py_2.0.0_3.0.0.diff",
    "browser_snapshot": "playwright_aria_snapshot_cnn.yml",
    "fetch_page": "v8_blog_standalone_wasm.html",
}


def payload_names() -> list[str]:
    """File names of every example payload, sorted."""
    return sorted(p.name for p in PAYLOADS.iterdir() if p.is_file())


def payload_path(name: str) -> Path:
    """Path of one example payload by file name; raises KeyError for an unknown name."""
    if name not in payload_names():
        raise KeyError(f"no example payload named {name!r}; known: {', '.join(payload_names())}")
    return PAYLOADS / name


def payload_text(name: str) -> str:
    """The payload's text exactly as recorded."""
    return payload_path(name).read_text(encoding="utf-8")
