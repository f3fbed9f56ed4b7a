"""Record lists of services new to the corpus in issue 27's ninth round (corpus/PROVENANCE.md: LocalStack snapshots
recorded against AWS, cartography's test data, the Microsoft Graph and Sentry API docs), as the model receives them
with zero configuration: each test names the promise it checks on the exact text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hostshape.records.locate import locate
from tests.answers import shaped_json_text as _shaped

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _load(name: str) -> Any:
    return json.loads((CORPUS / name).read_text(encoding="utf-8"))


def _records(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of the shaped list, whatever member the envelope names for it."""
    records: list[dict[str, Any]] = shown[shown["_hostshape"]["list"]]
    return records


def test_an_execution_history_keeps_every_event_number_and_type_within_the_budget(tmp_path: Path) -> None:
    # Step Functions: 30 events numbered 1..30, each carrying its state's whole input or output (10k tokens).
    raw = _load("aws_stepfunctions_get_execution_history.json")
    _text, shown = _shaped(tmp_path, raw, 2000)
    assert shown["_hostshape"]["list"] == "events"
    events = _records(shown)
    assert [e["id"] for e in events] == list(range(1, 31))
    assert [e["type"] for e in events] == [e["type"] for e in raw["events"]]
    assert events[-1]["previousEventId"] == raw["events"][-1]["previousEventId"]


def test_near_identical_stack_resources_are_told_apart_and_their_constants_stated_once(tmp_path: Path) -> None:
    # CloudFormation: 39 resources that differ only in their logical id and type.
    raw = _load("aws_cloudformation_describe_stack_resources.json")
    _text, shown = _shaped(tmp_path, raw, 2000)
    same = shown["_hostshape"]["same"]
    assert same["ResourceStatus"] == "CREATE_COMPLETE"
    assert same["StackName"] == "NoteTakingStack"
    pairs = {(r["LogicalResourceId"], r["ResourceType"]) for r in _records(shown)}
    assert pairs == {(r["LogicalResourceId"], r["ResourceType"]) for r in raw["StackResources"]}


def test_a_bare_list_of_queue_messages_names_every_message_and_its_body(tmp_path: Path) -> None:
    raw = _load("aws_lambda_sqs_event_records.json")
    located = locate(raw)
    assert located is not None and len(located.records) == 30
    _text, shown = _shaped(tmp_path, raw, 2000)
    assert [(r["messageId"], r["body"]) for r in _records(shown)] == [(r["messageId"], r["body"]) for r in raw]
    assert shown["_hostshape"]["same"]["eventSource"] == "aws:sqs"


@pytest.mark.parametrize(
    ("name", "ident"),
    [
        ("aws_lambda_list_functions.json", "FunctionName"),
        ("aws_elasticache_describe_cache_clusters.json", "CacheClusterId"),
    ],
)
def test_records_over_the_budget_are_all_named(tmp_path: Path, name: str, ident: str) -> None:
    raw = _load(name)
    located = locate(raw)
    assert located is not None
    _text, shown = _shaped(tmp_path, raw, 2000)
    assert [r[ident] for r in _records(shown)] == [r[ident] for r in located.records]


def test_a_graph_batch_under_the_budget_reaches_the_model_unchanged(tmp_path: Path) -> None:
    # Microsoft Graph $batch: responses correlated by id, each an HTTP status with an OData body or an error.
    raw = _load("msgraph_json_batch_responses.json")
    _text, shown = _shaped(tmp_path, raw, 2000)
    assert shown == raw


def test_a_graph_batch_over_the_budget_keeps_each_response_s_status_and_error(tmp_path: Path) -> None:
    raw = _load("msgraph_json_batch_responses.json")
    _text, shown = _shaped(tmp_path, raw, 700)
    assert shown["_hostshape"]["list"] == "responses"
    got = {r["id"]: r for r in _records(shown)}
    for r in raw["responses"]:
        assert got[r["id"]]["status"] == r["status"]
        if "error" in r["body"]:
            assert got[r["id"]]["body"]["error"]["code"] == r["body"]["error"]["code"]
    assert got["1"]["body"]["@odata.nextLink"] == raw["responses"][0]["body"]["@odata.nextLink"]


def test_typed_attribute_values_of_stream_records_keep_their_type_in_the_column_path(tmp_path: Path) -> None:
    # DynamoDB Streams: item keys and images as {"S": ...} attribute values; a table form names each column by its
    # full path, so the attribute's type (`.S`) is never lost.
    raw = _load("aws_dynamodb_streams_get_records.json")
    _text, shown = _shaped(tmp_path, raw, 500)
    table = shown["Records"]
    assert shown["_hostshape"]["form"] == "table"
    rows = [dict(zip(table["fields"], row, strict=True)) for row in table["rows"]]
    assert [r["dynamodb.Keys.id.S"] for r in rows] == [r["dynamodb"]["Keys"]["id"]["S"] for r in raw["Records"]]
    assert [r["eventName"] for r in rows] == [r["eventName"] for r in raw["Records"]]


def test_issues_under_a_tight_budget_keep_every_id_short_id_and_title(tmp_path: Path) -> None:
    # Sentry: two issues whose 24 hourly [time, count] pairs outweigh everything else; the one not shown whole is
    # still named in the index.
    raw = _load("sentry_project_issues_list.json")
    text, shown = _shaped(tmp_path, raw, 600)
    assert shown["_hostshape"]["total"] == 2
    for issue in raw:
        for member in ("id", "shortId", "title"):
            assert f'"{issue[member]}"' in text, (issue["id"], member)
