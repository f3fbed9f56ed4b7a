"""Identifiers that are identifiers (issue 27): unique, present, never constant; the API's own long id kept; ids
inside key/value pair lists and wrappers found. Built from shapes seen in real APIs, with made-up values."""

from __future__ import annotations

import json
import random
from typing import Any

from hostshape import Policy, shape
from hostshape.records.structure import dotted, index_columns, record_keys
from hostshape.tokens import count_tokens


def _shaped(tmp_path, value: Any, budget: int) -> tuple[dict[str, Any], str]:  # type: ignore[no-untyped-def]
    text = shape(json.dumps(value), policy=Policy(budget=budget, spill_dir=tmp_path / "spill"), tool="t").text
    assert count_tokens(text) <= budget
    return json.loads(text), text


def _findings(n: int = 20) -> list[dict[str, Any]]:
    rng = random.Random(2)
    out = []
    for i in range(n):
        h = f"{rng.getrandbits(128):032x}"
        out.append(
            {
                "Id": f"arn:aws:securityhub:us-east-1:123456789012:subscription/standard/v/1.0.0/EC2.{i}/finding/"
                f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}",
                "ProductArn": "arn:aws:securityhub:us-east-1::product/aws/securityhub",
                "Severity": {"Product": rng.choice([8.8, 4.0, 1.0]), "Label": rng.choice(["HIGH", "MEDIUM", "LOW"])},
                "Title": f"EC2.{i} Security groups should not allow ingress from 0.0.0.0/0 to port {1000 + i}",
                "Description": "This control checks whether the security group allows unrestricted ingress. " * 6,
                "CompanyName": "Amazon",
                "Compliance": {"Status": rng.choice(["FAILED", "PASSED"])},
            }
        )
    return out


def test_the_only_unique_key_is_kept_however_long(tmp_path) -> None:  # type: ignore[no-untyped-def]
    findings = _findings()
    key, alt = record_keys(findings, count_tokens)
    assert key == "Id" and alt != "CompanyName"
    for budget in (2000, 4000):
        doc, text = _shaped(tmp_path, {"Findings": findings, "NextToken": "x"}, budget)
        assert all(json.dumps(f["Id"]) in text for f in findings), budget
        if "_index" in doc:
            assert doc["_index"]["fields"][0] == "Id"
            assert all(None not in row for row in doc["_index"]["rows"])  # no column of nulls


def test_a_constant_is_never_a_second_identifier() -> None:
    records = [{"score": "8.8" if i % 2 else "4.0", "vendor": "Amazon", "n": i} for i in range(10)]
    key, alt = record_keys(records, count_tokens)
    assert key == "n" and alt != "vendor"
    assert all("vendor" not in layout for layout in index_columns(records, count_tokens))


def test_epoch_times_do_not_identify_records() -> None:
    records = [{"ts": 1543549826259342 + i * 7, "span": f"{i * 7919 % 4096:04x}{i % 3}"} for i in range(60)]
    assert record_keys(records, count_tokens)[0] == "span"


def _log_export(n: int = 100) -> tuple[dict[str, Any], list[str]]:
    rng = random.Random(1)
    records, ids = [], []
    for i in range(n):
        ids.append(f"evt-{i:05d}-{rng.randint(0, 999)}")
        records.append(
            {
                "timeUnixNano": str(1700000000000000000 + i * 1000),
                "severityText": rng.choice(["INFO", "WARN", "ERROR"]),
                "body": {"stringValue": "request handled " + "x" * rng.randint(50, 400)},
                "attributes": [
                    {"key": "event.id", "value": {"stringValue": ids[-1]}},
                    {"key": "http.route", "value": {"stringValue": rng.choice(["/a", "/b"])}},
                    {"key": "service.name", "value": {"stringValue": "checkout"}},
                ],
            }
        )
    resource = {"attributes": [{"key": "host.name", "value": {"stringValue": "h1"}}]}
    doc = {"resourceLogs": [{"resource": resource, "scopeLogs": [{"scope": {"name": "lib"}, "logRecords": records}]}]}
    return doc, ids


def test_an_identifier_inside_key_value_pairs_lists_every_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc, ids = _log_export()
    shaped, text = _shaped(tmp_path, doc, 4000)
    env = shaped["_hostshape"]
    assert env["returned"] + env["listed"] == len(ids)
    assert all(json.dumps(i) in text for i in ids)
    assert shaped["_index"]["fields"][0] == "attributes.event.id"


def test_dotted_reads_names_with_dots_pairs_and_typed_values() -> None:
    record = {"attributes": [{"key": "service.name", "value": {"stringValue": "api"}}], "a": {"b.c": 1}}
    assert dotted(record, "attributes.service.name") == "api"
    assert dotted(record, "a.b.c") == 1
    assert dotted(record, "a.x") is None
