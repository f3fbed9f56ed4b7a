"""The way back across machines: a result shaped by one worker is read back by another through a shared store.

Real servers on loopback (tests/store_servers.py): redis-server, and an S3-compatible endpoint (rclone serve s3);
workers are separate ``hostshape`` processes with their own HOME and cache folders.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hostshape import Policy, shape
from hostshape.cli.demo import HOSTS, TOOL
from hostshape.fit.budget import Limit
from hostshape.output.columns import as_records
from hostshape.wayback.retrieve import read
from hostshape.wayback.spill import SpillError
from hostshape.wayback.stores import open_store, page, using
from hostshape.wayback.stores.secret import SECRET_ENV
from tests.store_servers import Server, redis_server, s3_server  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parents[1]
SECRET = "a secret the workers share, 32+ bytes long"
BUDGET = 600
RECORDS = [{"id": i, "name": f"record {i}", "body": "word " * (20 + i % 7)} for i in range(240)]
WORKER_RECORDS = RECORDS[:40]  # several pages at BUDGET, each read by a process of its own (about 0.5 s apiece)


def worker_env(tmp_path: Path, name: str, url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A worker's environment: its own HOME, cache and config folders; the shared store URL and secret."""
    home = tmp_path / name
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOSTSHAPE_")}
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_CONFIG_HOME=str(home / "config"),
        PYTHONPATH=str(ROOT),
        HOSTSHAPE_SPILL_URL=url,
        **{SECRET_ENV: SECRET},
        **(extra or {}),
    )
    return env


def hostshape(env: dict[str, str], cwd: Path, *argv: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hostshape", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def ids(doc: dict[str, Any]) -> list[int]:
    return [r["id"] for r in as_records(doc.get("items", []))]


def read_every_page_in_another_worker(tmp_path: Path, url: str, extra: dict[str, str] | None = None) -> None:
    """Worker A shapes WORKER_RECORDS; worker B, with other folders, follows ``next`` over two pages or more to the
    end: every record once."""
    first_env, second_env = worker_env(tmp_path, "a", url, extra), worker_env(tmp_path, "b", url, extra)
    shaped = json.loads(
        hostshape(
            first_env,
            tmp_path / "a",
            "shape",
            "-",
            "--budget",
            str(BUDGET),
            "--tool",
            "t",
            stdin=json.dumps(WORKER_RECORDS),
        )
    )
    envelope = shaped["_hostshape"]
    assert envelope["truncated"] and envelope["handle"] and envelope["next"], envelope
    seen, cursor, pages = ids(shaped), envelope["next"], 0
    while cursor:
        page = hostshape(
            second_env, tmp_path / "b", "read", envelope["handle"], "--cursor", cursor, "--budget", str(BUDGET)
        )
        assert Limit.of(Policy(), BUDGET).fits(page)
        doc = json.loads(page)
        seen += ids(doc)
        cursor, pages = doc["_hostshape"].get("next"), pages + 1
        assert pages < 200
    assert sorted(seen) == [r["id"] for r in WORKER_RECORDS] and len(seen) == len(set(seen))
    assert pages >= 2, pages
    for worker in "ab":  # neither used its own spill folder
        assert not (tmp_path / worker / "cache" / "hostshape" / "spill").exists()


def test_a_second_worker_reads_every_page_from_a_shared_local_folder(tmp_path: Path) -> None:
    read_every_page_in_another_worker(tmp_path, str(tmp_path / "shared" / "spill"))


def test_a_second_worker_reads_every_page_from_redis(tmp_path: Path, redis_server: Server) -> None:  # noqa: F811
    read_every_page_in_another_worker(tmp_path, redis_server.url)


def test_a_second_worker_reads_every_page_from_s3(tmp_path: Path, s3_server: Server) -> None:  # noqa: F811
    read_every_page_in_another_worker(tmp_path, s3_server.url, s3_server.env)


# --- in-process properties, for every backend -----------------------------------------------------------------------


@pytest.fixture(params=["local", "redis", "s3", "memory"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    kind = request.param
    if kind == "local":
        return str(tmp_path / "shared")
    if kind == "memory":
        return f"memory://hostshape-test/{tmp_path.name}"
    server: Server = request.getfixturevalue(f"{kind}_server")
    return server.url


def policy_for(url: str, **changes: Any) -> Policy:
    return Policy(budget=BUDGET, spill_url=url, retrieval_tool="hostshape_read", **changes)


def test_a_handle_or_cursor_of_another_secret_or_tenant_is_refused(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = policy_for(store_url)
    res = shape(json.dumps(RECORDS), policy=policy, tool="t")
    envelope = json.loads(res.text)["_hostshape"]
    assert read(res.handle or "", cursor=envelope["next"], policy=policy).startswith("{")  # the owner reads it
    other_tenant = policy.replace(spill_tenant="another tenant")
    monkeypatch.setenv(SECRET_ENV, "another secret, also 32+ bytes long")
    for stranger in (policy, other_tenant):
        assert "no saved result" in read(res.handle or "", policy=stranger)
        assert "not valid here" in read(res.handle or "", cursor=envelope["next"], policy=stranger)


def test_a_record_altered_in_the_store_is_never_served(store_url: str) -> None:
    policy = policy_for(store_url)
    store = open_store(policy)
    saved = store.save("t", {}, json.dumps(RECORDS), is_json=True)
    other = store.save("t", {"other": 1}, json.dumps(RECORDS[:3]), is_json=True)
    if store.backend == "redis":
        client = store._client  # type: ignore[attr-defined]
        client.set(store._prefix + saved.handle, client.get(store._prefix + other.handle))  # type: ignore[attr-defined]
    elif store.backend == "objects":
        blobs = store._blobs  # type: ignore[attr-defined]
        blobs.put(saved.handle, blobs.get(other.handle))
    else:
        Path(saved.path or "").write_bytes(Path(other.path or "").read_bytes())
        pytest.skip("the local folder trusts the files its user wrote (tests/test_spill_security.py)")
    assert store.load(saved.handle) is None
    assert store.load(other.handle) == (json.dumps(RECORDS[:3]), True)


@pytest.mark.parametrize("handle", ["../../../etc/passwd", "hs_" + "0" * 24, "hs_*", "", "hs_" + "a" * 5000])
def test_a_made_up_handle_finds_nothing(store_url: str, handle: str) -> None:
    policy = policy_for(store_url, spill_ttl_s=60)
    store = open_store(policy)
    assert store.load(handle) is None and not store.evict(handle)
    answer = read(handle, policy=policy)
    assert answer.startswith("[hostshape] no saved result") and Limit.of(policy, BUDGET).fits(answer)


def test_saved_results_expire(store_url: str) -> None:
    policy = policy_for(store_url, spill_ttl_s=0.5)
    store = open_store(policy)
    saved = store.save("t", {}, "some text to keep", is_json=False)
    assert store.load(saved.handle) == ("some text to keep", False)
    if store.backend == "redis":
        ttl_ms = store._client.pttl(store._prefix + saved.handle)  # type: ignore[attr-defined]
        assert 0 < ttl_ms <= 500
    time.sleep(1.1)  # S3 and the folder keep times in whole seconds or milliseconds
    assert store.load(saved.handle) is None
    if store.backend == "redis":
        assert not store._client.exists(store._prefix + saved.handle)  # type: ignore[attr-defined]
    assert "no saved result" in read(saved.handle, policy=policy)


def test_the_store_stays_within_its_bound(store_url: str) -> None:
    bound = 30_000
    policy = policy_for(store_url, spill_max_bytes=bound)
    store = open_store(policy)
    handles = [store.save("t", {"n": n}, json.dumps(RECORDS[n : n + 20]), is_json=True).handle for n in range(40)]
    stats = store.stats()
    assert stats.bytes <= bound and 0 < stats.items < len(handles)
    assert store.load(handles[-1]) is not None  # the newest is kept, the oldest went first
    assert store.load(handles[0]) is None
    if store.backend == "redis":
        assert store._client.dbsize() <= stats.items + 3  # type: ignore[attr-defined]


def test_a_result_larger_than_a_shared_stores_bound_is_answered_with_a_note(store_url: str) -> None:
    if not store_url.startswith(("redis", "s3", "memory")):
        pytest.skip("the local folder keeps the newest result even when it alone exceeds the bound")
    policy = policy_for(store_url, spill_max_bytes=5_000)
    res = shape(json.dumps(RECORDS), policy=policy, tool="t")
    envelope = json.loads(res.text)["_hostshape"]
    assert res.handle is None and "not saved (the spill store could not save it)" in envelope["hint"]
    assert Limit.of(policy, BUDGET).fits(res.text)


@pytest.mark.parametrize("kind", ["redis", "s3"])
def test_a_store_stopped_mid_run_gives_a_budgeted_answer_with_a_note(
    kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    server: Server = request.getfixturevalue(f"{kind}_server")
    policy = policy_for(server.url)
    before = shape(json.dumps(RECORDS), policy=policy, tool="t")
    assert before.handle
    server.stop()
    started = time.monotonic()
    after = shape(json.dumps(RECORDS[::-1]), policy=policy, tool="t")
    envelope = json.loads(after.text)["_hostshape"]
    assert after.handle is None and "not saved (the spill store could not save it)" in envelope["hint"]
    assert Limit.of(policy, BUDGET).fits(after.text)
    page = read(before.handle, policy=policy)
    assert "cannot be reached now" in page and Limit.of(policy, BUDGET).fits(page)
    assert time.monotonic() - started < 60


def test_a_lent_store_wins_over_the_policy(tmp_path: Path) -> None:
    lent = open_store(Policy(spill_dir=tmp_path / "lent"))
    elsewhere = Policy(budget=BUDGET, spill_url="redis://127.0.0.1:1/0", retrieval_tool="hostshape_read")
    with using(lent):
        res = shape(json.dumps(RECORDS), policy=elsewhere, tool="t")
    assert res.handle and lent.load(res.handle) is not None
    assert json.loads(page(lent, res.handle, policy=elsewhere))["items"]


def test_the_spill_table_of_a_policy_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    toml = tmp_path / "policy.toml"
    toml.write_text(f'[spill]\nurl = "redis://cache:6379/2"\nsecret_file = "{secret}"\ntenant = "acme"\nttl_s = 600\n')
    policy = Policy.from_toml(toml)
    assert (policy.spill_url, policy.spill_secret_file, policy.spill_tenant, policy.spill_ttl_s) == (
        "redis://cache:6379/2",
        secret,
        "acme",
        600,
    )
    with pytest.raises(ValueError, match="spill_ttl_s"):
        Policy(spill_ttl_s=0)


def test_a_secret_file_others_can_read_or_a_short_secret_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    secret.chmod(0o644)
    with pytest.raises(SpillError, match="readable by other users"):
        open_store(Policy(spill_url=str(tmp_path / "s"), spill_secret_file=secret))
    monkeypatch.setenv(SECRET_ENV, "short")
    with pytest.raises(SpillError, match="shorter than"):
        open_store(Policy(spill_url=str(tmp_path / "s")))
    res = shape(json.dumps(RECORDS), policy=Policy(budget=BUDGET, spill_url=str(tmp_path / "s")), tool="t")
    assert res.handle is None and Limit.of(Policy(), BUDGET).fits(res.text)


def test_the_shared_secret_is_never_kept_in_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    shape(json.dumps(RECORDS), policy=Policy(budget=BUDGET, spill_url=str(tmp_path / "shared")), tool="t")
    kept = b"".join(p.read_bytes() for p in (tmp_path / "shared").rglob("*") if p.is_file())
    assert SECRET.encode() not in kept
    assert not list((tmp_path / "shared").rglob(".secret"))


# --- every host -----------------------------------------------------------------------------------------------------


@pytest.mark.host
@pytest.mark.parametrize("host", [h.key for h in HOSTS])
async def test_every_host_answers_within_the_budget_with_a_note_when_the_store_is_down(
    host: str,
    tmp_path: Path,
    redis_server: Server,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = next(h for h in HOSTS if h.key == host)
    pytest.importorskip(spec.framework)
    monkeypatch.setenv(SECRET_ENV, SECRET)
    redis_server.stop()  # the store went away before this worker's call
    harness = importlib.import_module(f"hostshape.testing.{host}")
    policy = Policy(budget=2000, spill_url=redis_server.url, spill_dir=tmp_path / "spill")
    run_ = await harness.run(TOOL, policy=policy)
    assert Limit.of(Policy(), 2000).fits(run_.received)
    assert "full result not saved (the spill store could not save it)" in run_.received.replace('\\"', '"')
    assert not (tmp_path / "spill").exists()


def test_exists_tells_a_held_result_from_the_records_metadata(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = policy_for(store_url, spill_ttl_s=0.5)
    store = open_store(policy)
    saved = store.save("t", {}, json.dumps(RECORDS), is_json=True)
    gone = store.save("t", {"n": 1}, "evicted soon", is_json=False)
    assert store.evict(gone.handle)
    if store.backend != "local":  # a HEAD or EXISTS: the record itself is never fetched
        monkeypatch.setattr(store, "_get", lambda handle: pytest.fail(f"read {handle}"))
    assert store.exists(saved.handle)
    for missing in (gone.handle, "hs_" + "0" * 24, "../../../etc/passwd", "hs_*", ""):
        assert not store.exists(missing), missing
    time.sleep(2.1)  # past the time to live and the second of slack for stores keeping times in whole seconds
    assert not store.exists(saved.handle)


def test_an_answer_of_a_layer_below_is_kept_and_a_forged_one_is_noted(store_url: str) -> None:
    """What the model receives: a hostshape answer from the same store (a proxy under a hook) is passed on as it
    is; the same text naming a handle the store does not hold is the tool's own, and says so."""
    policy = policy_for(store_url)
    below = shape(json.dumps(RECORDS), policy=policy, tool="t")
    assert below.handle and below.handle in below.text
    again = shape(below.text, policy=policy, tool="t")
    assert again.text == below.text
    forged = below.text.replace(below.handle, "hs_" + "0" * 24)
    noted = shape(forged, policy=policy, tool="t")
    assert noted.text != forged and "_hostshape_input" in noted.text
