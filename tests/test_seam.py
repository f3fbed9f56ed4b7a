"""The seam between the core and the hosts: the core measures the text in the form the host shows and sends it, owns
the one refusal, and the adapters only translate."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from hostshape import Policy, shape
from hostshape.adapters.registry import HOSTS, hosts
from hostshape.host import HostForm, json_result, refusal_for
from hostshape.output.envelope import REFUSALS
from hostshape.tokens import count_tokens

ADAPTERS = Path(__file__).resolve().parents[1] / "hostshape" / "adapters"
ESCAPE_HEAVY = 'say "hi"\t\x01\x02 ü\\ ' * 400


def adapter_sources() -> dict[str, str]:
    return {str(p.relative_to(ADAPTERS)): p.read_text(encoding="utf-8") for p in sorted(ADAPTERS.rglob("*.py"))}


def test_no_adapter_counts_tokens_or_fits() -> None:
    pattern = re.compile(r"hostshape\.tokens|count_tokens|safety_factor|hostshape\.budget|\bLimit\b|hostshape\.fit")
    sources = {**adapter_sources(), "hook.py": (ADAPTERS.parent / "cli" / "hook.py").read_text(encoding="utf-8")}
    offenders = {name: sorted(set(pattern.findall(src))) for name, src in sources.items() if pattern.search(src)}
    assert offenders == {}


def test_one_refusal_text() -> None:
    hook = (ADAPTERS.parent / "cli" / "hook.py").read_text(encoding="utf-8")
    for name, src in {**adapter_sources(), "hook.py": hook}.items():
        assert "withheld" not in src, name


@pytest.mark.parametrize("budget", [1, 3, 8, 40, 4000])
def test_the_refusal_fits_any_budget(budget: int) -> None:
    text = refusal_for(Policy(budget=budget), RuntimeError("x"), tool="list_pulls")
    assert text in [w.format(fault="RuntimeError", tool="list_pulls") for w in REFUSALS] or text == REFUSALS[-1]
    assert count_tokens(text) <= max(budget, count_tokens(REFUSALS[-1]))


@pytest.mark.parametrize("budget", [60, 400, 1600])
def test_the_budget_holds_for_the_form_the_host_sends(budget: int, tmp_path: Path) -> None:
    policy = Policy(budget=budget, spill_dir=tmp_path)
    res = shape(ESCAPE_HEAVY, policy=policy, host=HostForm(wrap=json_result))
    assert res.changed
    assert count_tokens(json_result(res.text)) <= budget


def test_a_result_that_fits_as_the_host_shows_it_is_left_alone(tmp_path: Path) -> None:
    policy = Policy(budget=1000, spill_dir=tmp_path)
    small = json.dumps({"result": "a short answer"})
    assert not shape(small, policy=policy, host=HostForm(as_is=small)).changed


def test_a_result_that_fits_unwrapped_but_not_as_shown_is_replaced(tmp_path: Path) -> None:
    inner = "\x00\x1f" * 700  # 1,400 tokens as text, 4,200 JSON-escaped
    wrapper = json.dumps({"result": inner})
    policy = Policy(budget=1600, spill_dir=tmp_path)
    assert not shape(wrapper, policy=policy).changed  # without the host form the core sees the unwrapped text
    res = shape(wrapper, policy=policy, host=HostForm(as_is=wrapper))
    assert res.changed and res.text == inner


def test_host_caps_in_bytes_and_characters_hold(tmp_path: Path) -> None:
    policy = Policy(budget=100_000, spill_dir=tmp_path)
    text = "ü€ " * 20_000
    by_bytes = shape(text, policy=policy, host=HostForm(max_bytes=10_000))
    assert len(by_bytes.text.encode("utf-8")) <= 10_000
    by_chars = shape(text, policy=policy, host=HostForm(max_chars=5_000))
    assert len(by_chars.text) <= 5_000


def test_a_host_note_heads_the_text_when_there_is_room(tmp_path: Path) -> None:
    note = "[hostshape] the host cut this result; the rest cannot be retrieved."
    policy = Policy(budget=500, spill_dir=tmp_path)
    res = shape("word " * 5_000, policy=policy, host=HostForm(notes=(note,), replace=True))
    assert res.text.startswith(note + "\n") and res.truncated and count_tokens(res.text) <= 500
    tiny = shape("word " * 5_000, policy=policy.replace(budget=20), host=HostForm(notes=(note,), replace=True))
    assert count_tokens(tiny.text) <= 20


def test_a_lone_blob_replaced_by_a_placeholder_says_it_was_cut(tmp_path: Path) -> None:
    blob = base64.b64encode(bytes(range(30))).decode()
    result = {
        "content": [
            {"type": "resource", "resource": {"uri": "blob://x", "mimeType": "application/octet-stream", "blob": blob}}
        ],
        "isError": False,
    }
    res = shape(result, policy=Policy(spill_dir=tmp_path))
    assert res.changed and res.truncated
    assert "30 bytes" in res.text


@pytest.mark.parametrize("module", [h.key for h in HOSTS if h.seam in ("agent", "command hook")])
def test_every_adapter_says_where_it_fires(module: str) -> None:
    import importlib

    adapter = importlib.import_module(f"hostshape.adapters.{module}")
    assert adapter.HOST and adapter.INTERCEPTION_POINT
    # "before the host limit": the host has a limit of its own and the adapter fires ahead of it (CrewAI's deferral)
    assert adapter.FIRES in (
        "after the host limit",
        "before the host limit",
        "before the model (the host has no limit)",
    )


@pytest.mark.parametrize("module", [h.key for h in hosts(installs=True)])
def test_one_install_shape(module: str) -> None:
    # install(target, policy=None, **host_options) in every host.
    import importlib
    import inspect

    install = importlib.import_module(f"hostshape.adapters.{module}").install
    params = list(inspect.signature(install).parameters.values())
    assert params[1].name == "policy" and params[1].default is None
    assert params[1].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:])


def test_a_glue_fault_follows_on_fault(tmp_path: Path) -> None:
    from hostshape.host import glue_fault

    raw = {"content": [{"type": "text", "text": "line of text\n" * 5_000}]}
    policy = Policy(budget=300, spill_dir=tmp_path / "spill")
    form = HostForm(wrap=json_result)
    cut = glue_fault(raw, policy, RuntimeError("glue"), tool="t", host=form)
    assert cut is not None and cut.startswith("line of text\n") and "shaping failed (RuntimeError)" in cut
    assert count_tokens(json_result(cut)) <= 300
    refused = glue_fault(raw, policy.replace(on_fault="refuse"), RuntimeError("glue"), tool="t", host=form)
    assert refused is not None and refused.startswith("[hostshape]") and "withheld" in refused
    assert glue_fault(raw, policy.replace(on_fault="pass"), RuntimeError("glue")) is None


def test_a_fault_answer_uses_the_keys_of_a_normal_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = json.dumps([{"id": i, "body": "word " * 50} for i in range(400)])
    policy = Policy(budget=500, spill_dir=tmp_path / "spill", retrieval_tool="hostshape_read")
    normal = json.loads(shape(raw, policy=policy).text)["_hostshape"]

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected")

    monkeypatch.setattr("hostshape.pipeline.project", boom)
    fault = json.loads(shape(raw, policy=policy).text)["_hostshape"]
    assert set(fault) <= set(normal) and {"truncated", "notes", "handle", "hint"} <= set(fault)


def test_every_adapter_module_is_in_the_registry() -> None:
    adapters = Path(__file__).resolve().parents[1] / "hostshape" / "adapters"
    modules = {p.stem for p in adapters.glob("*.py") if not p.stem.startswith("_")} - {"registry", "claude_code"}
    modules |= {p.name for p in adapters.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert modules == {h.key for h in HOSTS if h.adapter_module == f"hostshape.adapters.{h.key}"}


def test_a_content_block_of_no_mcp_type_is_named_in_the_envelope(tmp_path: Path) -> None:
    # A Strands-style block ({"text": ...} without "type") is not guessed at: it is shown as its JSON, and named.
    pulls = [{"number": n, "title": f"pull {n}", "body": "word " * 80} for n in range(60)]
    raw = {"content": [{"text": json.dumps(pulls)}], "isError": False}
    res = shape(raw, policy=Policy(budget=500, spill_dir=tmp_path))
    assert res.changed and res.tokens <= 500
    notes = json.loads(res.text)["_hostshape"]["notes"]
    assert any("1 content block(s) of no MCP type (keys text)" in note for note in notes)
