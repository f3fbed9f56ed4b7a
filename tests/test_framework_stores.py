"""The frameworks' own stores as the way back, in the real frameworks: ADK's InMemoryArtifactService and LangGraph's
InMemoryStore (another agent, another spill folder, the same framework store and secret, in one process), and ADK's
FileArtifactService and LangGraph's SqliteStore, each shared by two worker processes with their own HOME. One worker
shapes a result in its run; the other answers hostshape_read for every page of it, each record once. A store that
fails gives a budgeted answer with a note."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from helpers import PR_NUMBERS

from hostshape import Policy
from hostshape.output.columns import as_records
from hostshape.tokens import count_tokens
from hostshape.wayback.stores.secret import SECRET_ENV

pytestmark = pytest.mark.host

SECRET = "a secret the workers share, 32+ bytes long"
BUDGET = 1500  # the eleven pull requests take pages at it (as a table too)


@pytest.fixture(autouse=True)
def _shared_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)


def nothing_spilled_locally(*folders: Path) -> bool:
    return not any(folder.exists() and any(folder.rglob("hs_*")) for folder in folders)


def assert_answered_without_store(shaped: str, envelope: dict[str, Any], page: str, spill: Path) -> None:
    """What a host answers when its store is down: the result (``envelope`` its ``_hostshape``) and the page of a
    read both within the budget as the model receives them, the result with no handle and a note, the page saying
    so, nothing spilled."""
    assert count_tokens(shaped) <= BUDGET and count_tokens(page) <= BUDGET
    assert "handle" not in envelope and "full result not saved (the spill store could not save it)" in envelope["hint"]
    assert "cannot be reached now" in page
    assert nothing_spilled_locally(spill)


# --- ADK: the artifact service --------------------------------------------------------------------------------------


def adk_page(received: str) -> dict[str, Any]:
    return dict(json.loads(json.loads(received)["result"]))


async def test_a_second_adk_worker_reads_every_page_from_the_artifact_service(tmp_path: Path) -> None:
    pytest.importorskip("google.adk")
    from google.adk.artifacts import InMemoryArtifactService
    from google.adk.sessions import InMemorySessionService

    from hostshape.testing.adk import run

    artifacts, sessions = InMemoryArtifactService(), InMemorySessionService()
    shared: dict[str, Any] = {"store": "artifacts", "artifact_service": artifacts, "sessions": sessions}
    first = await run(
        "list_pull_requests", policy=Policy(budget=BUDGET, spill_dir=tmp_path / "a"), retrieval=True, **shared
    )
    page = adk_page(first.received)
    envelope, session_id = page["_hostshape"], first.extra["session"].id
    assert envelope["handle"] and envelope["next"] and count_tokens(first.received) <= BUDGET
    keys = await artifacts.list_artifact_keys(app_name="hostshape_adk", user_id="user", session_id=session_id)
    assert f"hostshape-{envelope['handle']}" in keys

    def next_call(received: list[str]) -> tuple[str, dict[str, Any]] | None:
        nxt = adk_page(received[-1])["_hostshape"].get("next")
        return ("hostshape_read", {"handle": envelope["handle"], "cursor": nxt}) if nxt else None

    second = await run(
        "hostshape_read",
        arguments={"handle": envelope["handle"], "cursor": envelope["next"]},
        policy=Policy(budget=BUDGET, spill_dir=tmp_path / "b"),
        retrieval=True,
        next_call=next_call,
        session_id=session_id,
        **shared,
    )
    pages = second.extra["received"]
    assert all(count_tokens(text) <= BUDGET for text in pages)
    walked = [r["number"] for r in as_records(page["items"])] + [
        r["number"] for text in pages for r in as_records(adk_page(text)["items"])
    ]
    assert walked == PR_NUMBERS  # every record, once, in order
    assert nothing_spilled_locally(tmp_path / "a", tmp_path / "b")


async def test_an_artifact_service_that_fails_gives_a_budgeted_answer_with_a_note(tmp_path: Path) -> None:
    pytest.importorskip("google.adk")
    from google.adk.artifacts import InMemoryArtifactService

    from hostshape.testing.adk import run

    class DownArtifactService(InMemoryArtifactService):
        """The real in-memory service, whose backend has gone away."""

        async def save_artifact(self, **kwargs: Any) -> int:
            raise ConnectionError("artifact backend unreachable")

        async def load_artifact(self, **kwargs: Any) -> Any:
            raise ConnectionError("artifact backend unreachable")

    def read_once(received: list[str]) -> tuple[str, dict[str, Any]] | None:
        return ("hostshape_read", {"handle": "hs_" + "0" * 24}) if len(received) == 1 else None

    run_ = await run(
        "list_pull_requests",
        policy=Policy(budget=BUDGET, spill_dir=tmp_path / "a"),
        retrieval=True,
        store="artifacts",
        artifact_service=DownArtifactService(),
        next_call=read_once,
    )
    shaped, page = run_.extra["received"]
    assert_answered_without_store(shaped, adk_page(shaped)["_hostshape"], page, tmp_path / "a")


# --- LangGraph: the graph's store -----------------------------------------------------------------------------------


async def test_a_second_langgraph_worker_reads_every_page_from_the_graph_store(tmp_path: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters")
    from langgraph.store.memory import InMemoryStore

    from hostshape.testing.langchain import run

    graph_store = InMemoryStore()
    first = await run(
        "list_pull_requests",
        policy=Policy(budget=BUDGET, spill_dir=tmp_path / "a"),
        retrieval=True,
        store="langgraph",
        graph_store=graph_store,
    )
    page = json.loads(first.received)
    envelope = page["_hostshape"]
    assert envelope["handle"] and envelope["next"] and count_tokens(first.received) <= BUDGET
    assert graph_store.search(("hostshape",), limit=10)

    def follow_up(text: str) -> tuple[str, dict[str, Any]] | None:
        nxt = json.loads(text)["_hostshape"].get("next")
        return ("hostshape_read", {"handle": envelope["handle"], "cursor": nxt}) if nxt else None

    second = await run(
        "hostshape_read",
        arguments={"handle": envelope["handle"], "cursor": envelope["next"]},
        policy=Policy(budget=BUDGET, spill_dir=tmp_path / "b"),
        retrieval=True,
        follow_up=follow_up,
        store="langgraph",
        graph_store=graph_store,
    )
    pages = second.extra["received_all"]
    assert all(count_tokens(text) <= BUDGET for text in pages)
    walked = [r["number"] for r in as_records(page["items"])] + [
        r["number"] for text in pages for r in as_records(json.loads(text)["items"])
    ]
    assert walked == PR_NUMBERS
    assert nothing_spilled_locally(tmp_path / "a", tmp_path / "b")


async def test_a_graph_store_that_fails_gives_a_budgeted_answer_with_a_note(tmp_path: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters")
    from langgraph.store.memory import InMemoryStore

    from hostshape.testing.langchain import run

    class DownStore(InMemoryStore):
        """The real in-memory store, whose backend has gone away."""

        def batch(self, ops: Any) -> Any:
            raise ConnectionError("store backend unreachable")

    def read_once(text: str) -> tuple[str, dict[str, Any]] | None:
        return ("hostshape_read", {"handle": "hs_" + "0" * 24}) if text.startswith('{"_hostshape"') else None

    run_ = await run(
        "list_pull_requests",
        policy=Policy(budget=BUDGET, spill_dir=tmp_path / "a"),
        retrieval=True,
        store="langgraph",
        graph_store=DownStore(),
        follow_up=read_once,
    )
    shaped, page = run_.extra["received_all"]
    assert_answered_without_store(shaped, json.loads(shaped)["_hostshape"], page, tmp_path / "a")


_ADK_WORKER = """
import asyncio, json, sys
from google.adk.artifacts import FileArtifactService
from google.adk.sessions import InMemorySessionService
from hostshape import Policy
from hostshape.testing.adk import run

async def main(root, spill, session_id, handle, cursor):
    sessions = InMemorySessionService()
    shared = dict(store="artifacts", artifact_service=FileArtifactService(root), sessions=sessions)
    policy = Policy(budget=int(sys.argv[6]), spill_dir=spill)
    if not handle:  # the first worker: shape the tool's result
        first = await run("list_pull_requests", policy=policy, retrieval=True, **shared)
        return {"received": [first.received], "session_id": first.extra["session"].id}
    await sessions.create_session(app_name="hostshape_adk", user_id="user", session_id=session_id)

    def next_call(received):
        nxt = json.loads(json.loads(received[-1])["result"])["_hostshape"].get("next")
        return ("hostshape_read", {"handle": handle, "cursor": nxt}) if nxt else None

    second = await run("hostshape_read", arguments={"handle": handle, "cursor": cursor}, policy=policy,
                       retrieval=True, next_call=next_call, session_id=session_id, **shared)
    return {"received": second.extra["received"]}

print(json.dumps(asyncio.run(main(*sys.argv[1:6]))))
"""


def worker(tmp_path: Path, name: str, script: str, *argv: str) -> dict[str, Any]:
    """``script`` run as a fresh worker process (its own home, its own spill folder ``<home>/spill``, the shared
    secret); what it printed last, as JSON."""
    home = tmp_path / name
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOSTSHAPE_")}
    root = str(Path(__file__).resolve().parents[1])
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), PYTHONPATH=root, **{SECRET_ENV: SECRET})
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def adk_worker(tmp_path: Path, name: str, *argv: str) -> dict[str, Any]:
    spill = str(tmp_path / name / "spill")
    return worker(tmp_path, name, _ADK_WORKER, str(tmp_path / "artifacts"), spill, *argv, str(BUDGET))


def test_two_adk_worker_processes_share_a_file_artifact_service(tmp_path: Path) -> None:
    pytest.importorskip("google.adk")
    first = adk_worker(tmp_path, "a", "", "", "")
    page = adk_page(first["received"][0])
    envelope = page["_hostshape"]
    assert envelope["handle"] and envelope["next"]
    second = adk_worker(tmp_path, "b", first["session_id"], envelope["handle"], envelope["next"])
    pages = second["received"]
    assert all(count_tokens(text) <= BUDGET for text in [*first["received"], *pages])
    walked = [r["number"] for r in as_records(page["items"])] + [
        r["number"] for text in pages for r in as_records(adk_page(text)["items"])
    ]
    assert walked == PR_NUMBERS
    assert nothing_spilled_locally(tmp_path / "a" / "spill", tmp_path / "b" / "spill")


_LANGGRAPH_WORKER = """
import asyncio, json, sys
from langgraph.store.sqlite import SqliteStore
from hostshape import Policy
from hostshape.testing.langchain import run

async def main(database, spill, handle, budget):
    policy = Policy(budget=int(budget), spill_dir=spill)
    with SqliteStore.from_conn_string(database) as graph_store:
        shared = dict(retrieval=True, store="langgraph", graph_store=graph_store)
        if not handle:  # the first worker: shape the tool's result
            first = await run("list_pull_requests", policy=policy, **shared)
            return {"received": [first.received]}

        def follow_up(text):
            nxt = json.loads(text)["_hostshape"].get("next")
            return ("hostshape_read", {"handle": handle, "cursor": nxt}) if nxt else None

        # the second worker: hostshape_read for every page, from the first
        second = await run("hostshape_read", arguments={"handle": handle}, policy=policy, follow_up=follow_up,
                           **shared)
        return {"received": second.extra["received_all"]}

print(json.dumps(asyncio.run(main(*sys.argv[1:5]))))
"""


def langgraph_worker(tmp_path: Path, name: str, handle: str) -> dict[str, Any]:
    database, spill = str(tmp_path / "graph-store.sqlite"), str(tmp_path / name / "spill")
    return worker(tmp_path, name, _LANGGRAPH_WORKER, database, spill, handle, str(BUDGET))


def test_two_langgraph_worker_processes_share_a_sqlite_store(tmp_path: Path) -> None:
    pytest.importorskip("langchain_mcp_adapters")
    pytest.importorskip("langgraph.store.sqlite")
    first = langgraph_worker(tmp_path, "a", "")
    page = json.loads(first["received"][0])
    envelope = page["_hostshape"]
    assert envelope["handle"] and envelope["next"]
    with closing(sqlite3.connect(tmp_path / "graph-store.sqlite")) as database:  # the record is in the shared file
        assert database.execute("SELECT count(*) FROM store WHERE key = ?", (envelope["handle"],)).fetchone() == (1,)
    second = langgraph_worker(tmp_path, "b", envelope["handle"])
    pages = second["received"]
    assert len(pages) > 1 and all(count_tokens(text) <= BUDGET for text in [*first["received"], *pages])
    # the second worker's first page starts with the records the first showed (the first page may show its last
    # record shrunk where the second, with more room for records, shows it whole)
    shown = [r["number"] for r in as_records(page["items"])]
    assert [r["number"] for r in as_records(json.loads(pages[0])["items"])][: len(shown)] == shown
    walked = [r["number"] for text in pages for r in as_records(json.loads(text)["items"])]
    assert walked == PR_NUMBERS  # every record, once, in order
    assert nothing_spilled_locally(tmp_path / "a" / "spill", tmp_path / "b" / "spill")


def test_a_graph_store_and_staged_artifacts_tell_which_handles_they_hold(tmp_path: Path) -> None:
    """``exists`` (the forged-envelope check's lookup) in the framework stores: a saved handle is held, a made-up,
    evicted or foreign one is not."""
    from langgraph.store.memory import InMemoryStore

    from hostshape.wayback.stores.frameworks import langgraph_store, staged

    policy = Policy(budget=BUDGET, spill_dir=tmp_path / "spill")
    graph = langgraph_store(policy, InMemoryStore())
    artifacts = staged(policy)
    for store in (graph, artifacts):
        saved = store.save("t", {}, json.dumps(PR_NUMBERS), is_json=True)
        gone = store.save("t", {"n": 1}, "evicted", is_json=False)
        assert store.evict(gone.handle)
        assert store.exists(saved.handle), store.backend
        assert not any(store.exists(h) for h in (gone.handle, "hs_" + "0" * 24, "hs_*", "")), store.backend
    other = staged(policy)
    other.preload(saved.handle, None)  # the artifact service holds nothing under it
    assert not other.exists(saved.handle)
