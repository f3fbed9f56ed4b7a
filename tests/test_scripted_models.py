"""The script every host's public scripted model plays (hostshape.testing.script), and that every host has one."""

from __future__ import annotations

import importlib
import inspect

from hostshape.adapters.registry import hosts
from hostshape.testing.script import MAX_CALLS, Script


def test_a_turn_calls_first_then_next_call_until_it_declines_then_answers() -> None:
    script = Script(("list", {}), lambda received: ("read", {"page": len(received)}) if len(received) < 3 else None)
    assert script.reply("request 1", []) == ("list", {})
    assert script.reply("request 2", ["page 0"]) == ("read", {"page": 1})
    assert script.reply("request 3", ["page 1"]) == ("read", {"page": 2})
    assert script.reply("request 4", ["page 2"]) is None  # the model answers its final text
    assert script.received == ["page 0", "page 1", "page 2"] and len(script.requests) == 4
    assert script.reply("request 5", []) == ("list", {})  # a request without new results starts the next turn


def test_a_host_that_sends_the_whole_history_counts_only_the_new_results() -> None:
    script = Script(("list", {}), lambda received: ("read", {}) if len(received) == 1 else None)
    assert script.reply_to_history("r1", []) == ("list", {})
    assert script.reply_to_history("r2", ["a"]) == ("read", {})
    assert script.reply_to_history("r3", ["a", "b"]) is None
    assert script.received == ["a", "b"]


def test_a_runaway_script_ends() -> None:
    script = Script(("list", {}), lambda received: ("read", {}))
    script.reply("first", [])
    calls = [script.reply(f"request {i}", [f"page {i}"]) for i in range(MAX_CALLS + 5)]
    assert calls[:MAX_CALLS] == [("read", {})] * MAX_CALLS and set(calls[MAX_CALLS:]) == {None}


def test_every_host_has_a_public_scripted_model_of_one_signature() -> None:
    for host in hosts(installs=True):
        try:
            module = importlib.import_module(f"hostshape.testing.{host.key}")
        except ImportError:  # the framework is not installed in this environment
            continue
        parameters = list(inspect.signature(module.scripted_model).parameters)
        assert parameters[:3] == ["first", "next_call", "final_text"], host.key
