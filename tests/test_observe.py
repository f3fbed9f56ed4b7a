"""Telemetry and `hostshape measure` report what each tool costs."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hostshape import Policy, shape, telemetry
from hostshape.examples import payload_text
from hostshape.testing import mcp_server_command


def test_the_summary_gives_percentiles_of_tokens_before_and_after_per_tool() -> None:
    telemetry.collect()
    try:
        for name in ("gh_pulls_list.json", "gh_issues_list.json", "octokit_issues_page1.json"):
            shape(payload_text(name), policy=Policy(budget=4000), tool="github", server="gh")
        stats = telemetry.summary()["gh/github"]
    finally:
        telemetry.collect(False)
    assert stats["tokens_before"]["count"] == 3
    assert stats["tokens_before"]["max"] == 54552
    assert stats["tokens_after"]["max"] <= 4000
    assert stats["tokens_before"]["p50"] <= stats["tokens_before"]["p95"] <= stats["tokens_before"]["max"]


def test_every_call_is_logged_with_its_sizes(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hostshape.telemetry"):
        shape(payload_text("gh_pulls_list.json"), policy=Policy(budget=4000), tool="list_pull_requests")
    record = next(r for r in caplog.records if r.name == "hostshape.telemetry")
    assert "'tokens_before': 54552" in record.getMessage() and "'strategy': 'records'" in record.getMessage()


def test_the_current_span_gets_genai_and_hostshape_attributes() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("test").start_as_current_span("tool call"):
        shape(payload_text("gh_pulls_list.json"), policy=Policy(budget=4000), tool="list_pull_requests")
    attributes = exporter.get_finished_spans()[0].attributes
    assert attributes["gen_ai.tool.name"] == "list_pull_requests"
    assert attributes["hostshape.tokens_before"] == 54552
    assert attributes["hostshape.tokens_after"] <= 4000


@pytest.mark.host
def test_measure_reports_the_menu_tax_and_each_call_against_a_real_stdio_server() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hostshape.cli",
            "measure",
            "--json",
            "--call",
            "list_pull_requests",
            "--call",
            "fetch",
            "--args",
            '{"name": "octokit_issues_page1.json"}',
            "--",
            *mcp_server_command(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(out.stdout)
    assert report["menu_tokens"] == sum(t["schema_tokens"] for t in report["tools"]) > 0
    pulls, small = report["calls"]
    assert pulls["raw_tokens"] == 54552 and pulls["structured_copy_tokens"] > 54552
    assert pulls["shaped_tokens"] <= 4000
    assert small["args"] == {"name": "octokit_issues_page1.json"} and small["strategy"] == "passthrough"
