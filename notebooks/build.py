"""Write the walkthrough notebooks in this folder from the cells below, and execute them in place.

    .venv/bin/python notebooks/build.py                  # every notebook
    .venv/bin/python notebooks/build.py 03_langchain     # some of them

Each notebook is executed with nbclient on the interpreter running this script (nothing is registered with
Jupyter) from the repository root, and saved with its outputs so that it renders as documentation.
tests/test_notebooks.py executes them again and checks that the committed outputs are still what the code
produces. Outputs are kept reproducible: the spill store gets a fixed secret, so handles (and the token counts of
texts that carry them) are the same on every run, and handles, cursors and file paths are masked where printed.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TIMEOUT = 300  # seconds per cell
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

Cell = tuple[str, str]  # ("markdown" | "code", source)


def md(source: str) -> Cell:
    return ("markdown", textwrap.dedent(source).strip())


def code(source: str) -> Cell:
    return ("code", textwrap.dedent(source).strip())


# -- shared cells ---------------------------------------------------------------------------------------------------

SETUP = code('''
    import hashlib
    import json
    import re
    import shutil
    import tempfile
    from pathlib import Path

    from hostshape import Policy
    from hostshape.examples import TOOLS, payload_text
    from hostshape.tokens import count_tokens

    # A private spill folder for this notebook (where hostshape keeps the full originals of what it cut). Its
    # secret is fixed only so that this page reads the same on every run; a real store creates a random one.
    SPILL = Path(tempfile.mkdtemp(prefix="hostshape-notebook-")) / "spill"
    SPILL.mkdir(mode=0o700)
    (SPILL / ".secret").write_bytes(hashlib.sha256(b"hostshape notebooks").digest())
    (SPILL / ".secret").chmod(0o600)

    policy = Policy(budget=4000, spill_dir=SPILL)


    def masked(text):
        """Hide what is particular to one machine or run: handles, cursors, file paths."""
        text = re.sub(r"hs_[0-9a-f]{24}", "hs_…", text)
        text = re.sub(r'(\\\\?"next\\\\?":\\\\?")[\\w-]+', r"\\1…", text)
        return re.sub(r"(?:/[^\\s/]+)+/tool-results/[^\\s/]+?\\.txt", "<saved file>", text)


    def show_envelope(env):
        """Print an envelope with its handle and cursor masked."""
        for key, value in env.items():
            print(f"{key}: {'…' if key in ('handle', 'next') else json.dumps(value, ensure_ascii=False)}")
''')

TOOL_CELL = code("""
    from hostshape.cli.demo import identifiers_kept

    TOOL = "list_pull_requests"
    raw = payload_text(TOOLS[TOOL])
    numbers = [pull["number"] for pull in json.loads(raw)]
    print(f"{TOOL} returns {TOOLS[TOOL]}: {count_tokens(raw):,} tokens (o200k_base), {len(numbers)} pull requests")
""")

CLEANUP = code("""
    shutil.rmtree(SPILL.parent)
""")


def chart_cells(without: str = "count_tokens(without.received)") -> list[Cell]:
    """Without vs with hostshape as a bar chart: what the tool returned, what the model got each time, the budget.
    ``without`` is the expression for the tokens the model got without hostshape."""
    return [
        md("## Without vs with, as a chart"),
        code(f"""
            %matplotlib inline
            import matplotlib.pyplot as plt

            sizes = {{
                "the tool returned": count_tokens(raw),
                "the model got without hostshape": {without},
                "the model got with hostshape": count_tokens(shaped.received),
            }}
            fig, ax = plt.subplots(figsize=(8, 2.6))
            bars = ax.barh(list(sizes), list(sizes.values()), color=["tab:grey", "tab:red", "tab:green"])
            ax.bar_label(bars, labels=[f"{{v:,}}" for v in sizes.values()], padding=3, fontsize=8)
            ax.axvline(policy.budget, color="black", linestyle="--", linewidth=1, label=f"budget {{policy.budget:,}}")
            ax.set_xlim(0, max(sizes.values()) * 1.15)
            ax.invert_yaxis()
            ax.xaxis.set_major_formatter("{{x:,.0f}}")
            ax.set_xlabel("tokens (o200k_base)")
            ax.set_title(f"{{TOOL}}: {{len(numbers)}} pull requests")
            ax.legend(loc="lower right")
            fig.tight_layout()
            plt.show()
            for label, tokens in sizes.items():
                print(f"{{label}}: {{tokens:,}} tokens")
        """),
    ]


WAY_BACK_INTRO = md("""
    ## The way back, inside the host

    Fifty issues (`list_issues`, `gh_issues_list.json`) do not fit in 4,000 tokens: the shaped result holds some
    whole records, lists the rest in a compact `_index`, and its envelope gives a `handle` and a `next` cursor. The
    scripted model then does what the hint tells it: it calls `hostshape_read` with that handle and cursor, through
    the host's own tool machinery, and reads the next page.
""")

WAY_BACK_SHOW = code("""
    from hostshape.output.columns import as_records  # records shown as a table ("form": "table") read back as objects

    first_doc, page_doc = json.loads(first), json.loads(page)
    first_items, page_items = as_records(first_doc["items"]), as_records(page_doc["items"])
    env = first_doc["_hostshape"]
    print(f"first result: {count_tokens(first):,} tokens, truncated={env['truncated']}, "
          f"{len(first_items)} whole records of {env.get('total')}, "
          f"{len(first_doc.get('_index', {}).get('rows', []))} more in the index")
    print("its hint:", env["hint"])
    print(f"the model called {read_name}(handle=…, cursor=<next of the first result>)")
    print(f"and read {count_tokens(page):,} tokens (budget {policy.budget:,}): issues",
          [item["number"] for item in page_items])
    already = {item["number"] for item in first_items} & {item["number"] for item in page_items}
    print("records it had already seen:", sorted(already) or "none")
    print("more after this page:", "next" in page_doc["_hostshape"])
""")


def way_back_cells(run_source: str) -> list[Cell]:
    """A cut result in the host, then one hostshape_read call following its next: ``run_source`` sets ``first``
    (the shaped result), ``page`` (what hostshape_read returned) and ``read_name`` (the tool as the host names it)."""
    return [WAY_BACK_INTRO, code(run_source), WAY_BACK_SHOW]


def fires_cells(module: str) -> list[Cell]:
    return [
        md("""
            ## Where the hook fires

            Relative to the host's own size limit, as the adapter module states it (the paragraph after its docstring's summary line):
        """),
        code(f"""
            import textwrap

            import hostshape.adapters.{module} as adapter

            print(f"{{adapter.HOST}}: {{adapter.INTERCEPTION_POINT}}")
            print(f"fires: {{adapter.FIRES}}")
            print()
            print(textwrap.fill(" ".join(adapter.__doc__.split("\\n\\n")[1].split()), 110))
        """),
    ]


def before_after_cells(
    module: str, with_call: str, unwrap: str = "shaped.received", without_text: str = "without.received"
) -> list[Cell]:
    """Run without, then with, hostshape; print what the model received each time and the envelope.
    ``without_text`` is the expression for the text the model got without hostshape, as shown and counted."""
    plain = without_text == "without.received"
    seen = "without.received" if plain else "without_text"
    shown = "" if plain else f"\n            without_text = {without_text}"
    return [
        md("""
            ## Without hostshape

            The scripted model calls the tool once; `received` is exactly the text the model was given as the result.
        """),
        code(f"""
            from hostshape.testing import {module} as harness

            without = await harness.run(TOOL, policy=None){shown}
            print(f"model received: {{count_tokens({seen}):,}} tokens, "
                  f"{{identifiers_kept({seen}, numbers):.0%}} of the pull request numbers")
            print({seen}[:300], "…")
        """),
        md("""
            ## With hostshape

            The same run with the adapter installed (budget 4,000 tokens, with the `hostshape_read` retrieval tool).
        """),
        code(f"""
            shaped = await {with_call}
            print(f"model received: {{count_tokens(shaped.received):,}} tokens (budget {{policy.budget:,}}), "
                  f"{{identifiers_kept(shaped.received, numbers):.0%}} of the pull request numbers")
            print(masked(shaped.received[:600]), "…")
        """),
        md("""
            ## The envelope

            The first member of the shaped JSON says what was kept, what projection omitted, and how to get the rest
            (handle and cursor masked here).
        """),
        code(f"""
            text = {unwrap}
            show_envelope(json.loads(text)["_hostshape"])
        """),
        *chart_cells(f"count_tokens({seen})"),
    ]


# -- the notebooks --------------------------------------------------------------------------------------------------

DOCUMENTS: list[Cell] = [
    md("""
        ## Documents: a map of the whole page, then the part you need

        A scraped docs page or a fetched HTML page is not a record list. Over the budget, its first answer is an
        outline of the whole document (each entry with its id, line range and size), what matters most for its
        kind, and its head; the way back reads by structure: `section` (an outline id or title), `lines` or `grep`.
        A long Markdown page first (a scrape of the awesome-python README):
    """),
    code("""
        readme = shape(payload_text("awesome_python_README.md"), policy=policy, tool="scrape_as_markdown", server="web")
        print(f"{readme.tokens:,} of {readme.tokens_before:,} tokens, strategy {readme.strategy!r}")
        print(masked("\\n".join(readme.text.splitlines()[:14])), "\\n…")
    """),
    code("""
        print(masked(read(readme.handle, section="Task Queues", policy=policy)))
    """),
    code("""
        print(masked(read(readme.handle, grep="celery|dramatiq", policy=policy)))
    """),
    md("""
        An HTML page (Effective Go, from `corpus/documents/`): the model reads its text with headings, links and
        code, not its markup.
    """),
    code("""
        from pathlib import Path

        html_page = Path("corpus/documents/effective_go.html").read_text(encoding="utf-8")
        go = shape(html_page, policy=policy, tool="fetch", server="web")
        print(f"{go.tokens:,} of {go.tokens_before:,} tokens, strategy {go.strategy!r}")
        print(masked("\\n".join(go.text.splitlines()[:14])), "\\n…")
    """),
    code("""
        print(masked(read(go.handle, section="Getters", policy=policy)))
    """),
    code("""
        print(masked(read(go.handle, grep=r"\\bdefer\\b", policy=policy)))
    """),
]


CORE: list[Cell] = [
    md("""
        # hostshape: the core

        `shape(raw, policy=..., tool=...)` turns whatever a host hands over into the exact text a model should read,
        within a hard token budget counted with a real tokenizer (o200k_base), with an in-band envelope saying what
        was cut and a way back to the rest. This notebook runs it on every recorded payload shipped in
        `hostshape/examples/payloads` (provenance in `hostshape/examples/PROVENANCE.md`); no framework is involved.
    """),
    SETUP,
    md("""
        ## Every payload at a budget of 4,000 tokens

        `retrieval_tool` names the tool the envelope's hint points the model to; each adapter's `install(...)` sets it
        when it registers that tool in its host.
    """),
    code("""
        from hostshape import shape
        from hostshape.examples import payload_names
        from hostshape.wayback.retrieve import RETRIEVAL_TOOL

        policy = policy.replace(retrieval_tool=RETRIEVAL_TOOL)
        tool_of = {payload: tool for tool, payload in TOOLS.items()}
        rows = []
        for name in payload_names():
            raw_text = payload_text(name)
            res = shape(raw_text, policy=policy, tool=tool_of[name], server="examples")
            rows.append((name, count_tokens(raw_text), res.tokens, res.changed, res.strategy, res.truncated))

        print(f"{'payload':38} {'raw':>8} {'shaped':>7}  changed  strategy     truncated")
        for name, raw_tokens, shaped_tokens, changed, strategy, truncated in rows:
            print(f"{name:38} {raw_tokens:>8,} {shaped_tokens:>7,}  {changed!s:7}  {strategy:12} {truncated}")
        assert all(shaped_tokens <= policy.budget for _, _, shaped_tokens, *_ in rows)
    """),
    md("""
        `changed=False` means "leave the host's result as it is": `octokit_issues_page1.json` already fits.
        `truncated=False` with `changed=True` means projection alone brought it under the budget, nothing was cut.
    """),
    code("""
        %matplotlib inline
        import matplotlib.pyplot as plt

        labels = [name.rsplit(".", 1)[0] for name, *_ in rows]
        x = range(len(rows))
        fig, ax = plt.subplots(figsize=(10, 4.5))
        raw_bars = ax.bar([i - 0.2 for i in x], [r[1] for r in rows], width=0.4, label="raw")
        shaped_bars = ax.bar([i + 0.2 for i in x], [r[2] for r in rows], width=0.4, label="shaped (hostshape)")
        ax.bar_label(raw_bars, labels=[f"{r[1] / 1000:.1f}k" for r in rows], fontsize=7, padding=2)
        ax.bar_label(shaped_bars, labels=[f"{r[2] / 1000:.1f}k" for r in rows], fontsize=7, padding=2)
        ax.axhline(policy.budget, color="grey", linestyle="--", linewidth=1, label=f"budget {policy.budget:,}")
        ax.yaxis.set_major_formatter("{x:,.0f}")
        ax.set_ylabel("tokens (o200k_base)")
        ax.set_xticks(list(x), labels, rotation=35, ha="right", fontsize=8)
        ax.set_title("Raw vs shaped tokens per recorded payload")
        ax.legend()
        fig.tight_layout()
        plt.show()
    """),
    md("""
        ## What the model reads

        Eleven pull requests: 54,552 tokens raw, mostly repository objects nested twice per record. With zero
        configuration hostshape drops link noise, collapses nested entities to their identifying value (a user to its
        login, a repository to its full name) and keeps every record:
    """),
    code("""
        pulls = shape(payload_text("gh_pulls_list.json"), policy=policy, tool="list_pull_requests", server="github")
        print(f"{pulls.tokens:,} tokens, strategy {pulls.strategy!r}, truncated={pulls.truncated}")
        print(masked(pulls.text[:600]), "…")
    """),
    code("""
        show_envelope(json.loads(pulls.text)["_hostshape"])
    """),
    md("""
        ## A rule: choose the fields yourself (JMESPath)

        A `Rule` routes by tool (and server) name patterns and projects with a JMESPath expression or a field list.
        A rule with a projection applies even when the result fits the budget.
    """),
    code("""
        from hostshape import Rule
        from hostshape.output.columns import as_records

        rule = Rule(tool="list_pull_requests", server="github",
                    jmespath="[].{number: number, title: title, author: user.login, base: base.ref}")
        picked = shape(payload_text("gh_pulls_list.json"), policy=policy.replace(rules=(rule,)),
                       tool="list_pull_requests", server="github")
        print(f"{picked.tokens:,} tokens, strategy {picked.strategy!r}")
        for pull in as_records(json.loads(picked.text)["items"])[:4]:
            print(pull)
    """),
    md("""
        ## The way back: `hostshape.wayback.retrieve.read`

        Fifty issues do not fit in 4,000 tokens: the first answer holds some whole records and lists the others in
        a compact `_index`. The full original was saved in the spill store; `read(handle, query, cursor)` is what the
        `hostshape_read` tool calls in every host. Following `next` from the first page returns every record once.
    """),
    code("""
        from hostshape.output.columns import as_records  # a table ("form": "table") read back as objects
        from hostshape.wayback.retrieve import read

        issues = shape(payload_text("gh_issues_list.json"), policy=policy, tool="list_issues", server="github")
        first = json.loads(issues.text)
        print(f"{issues.tokens:,} tokens; {len(as_records(first['items']))} whole records, "
              f"{len(first['_index']['rows'])} more in the index")
        show_envelope(first["_hostshape"])
    """),
    code("""
        seen, cursor, page = [], None, 0
        while True:
            text = read(issues.handle, cursor=cursor, policy=policy)
            doc = json.loads(text)
            page += 1
            items = as_records(doc["items"])
            seen += [item["number"] for item in items]
            print(f"page {page}: {len(items)} records, {count_tokens(text):,} tokens")
            cursor = doc["_hostshape"].get("next")
            if cursor is None:
                break
        all_numbers = [issue["number"] for issue in json.loads(payload_text("gh_issues_list.json"))]
        print(f"{len(seen)} records read, each once: {sorted(seen) == sorted(all_numbers)}")
    """),
    md("""
        A `query` is a JMESPath expression over the full original, so the model can pick records or fields that the
        first answer omitted:
    """),
    code("""
        print(masked(read(issues.handle, query="[?state=='open'].{number: number, title: title, comments: comments}",
                          policy=policy)))
    """),
    *DOCUMENTS,
    CLEANUP,
]


CLAUDE: list[Cell] = [
    md("""
        # hostshape in the Claude Agent SDK (Claude Code)

        The Claude Agent SDK drives the Claude Code CLI. Claude Code has its own limit on MCP results,
        `MAX_MCP_OUTPUT_TOKENS` (default 25,000 tokens): a larger result never reaches the model; it is saved to a
        file and the model gets a notice naming that file. hostshape's `PostToolUse` hook fires **after** that
        limit, so it rescues an oversized result by reading the saved file and shaping the full original.

        Everything below runs offline: the real bundled Claude Code CLI talks to a scripted stand-in for the Messages
        API on 127.0.0.1 (`hostshape.testing.claude`), and calls the tool `list_pull_requests` of the example stdio
        MCP server, which returns a real recorded GitHub API payload.
    """),
    SETUP,
    TOOL_CELL,
    md("""
        ## The one-line setup

        `install` adds the hooks, the in-process `hostshape` MCP server with the retrieval tool `hostshape_read`, and
        permission to call it, keeping what the options already had:
    """),
    code("""
        from claude_agent_sdk import ClaudeAgentOptions

        from hostshape.adapters.claude import install

        options = install(ClaudeAgentOptions(mcp_servers={"github": {"command": "github-mcp-server"}}), policy)

        print("hooks:", sorted(options.hooks))
        print("MCP servers:", sorted(options.mcp_servers))
        print("allowed tools:", options.allowed_tools)
    """),
    md("""
        ## Without hostshape

        The result is over Claude Code's 25,000-token limit, so the model gets a notice instead of the pull requests
        (the saved file's path is masked here; it names a temporary folder and a session id).
    """),
    code("""
        from hostshape.testing import claude as harness

        without = await harness.run(TOOL, policy=None)
        notice = masked(without.received)
        print(f"model received: a notice of {count_tokens(notice):,} tokens (counted with its paths masked), "
              f"{identifiers_kept(without.received, numbers):.0%} of the pull request numbers")
        print(notice[:600], "…")
    """),
    md("""
        ## With hostshape

        The same run with `install(options, policy)`. `workdir` keeps the CLI's folders after the run so that we can
        look at the file Claude Code saved.
    """),
    code("""
        workdir = tempfile.mkdtemp(prefix="hostshape-claude-")
        shaped = await harness.run(TOOL, policy=policy, workdir=workdir)
        print(f"model received: {count_tokens(shaped.received):,} tokens (budget {policy.budget:,}), "
              f"{identifiers_kept(shaped.received, numbers):.0%} of the pull request numbers")
        print(masked(shaped.received[:600]), "…")
    """),
    md("""
        ## The envelope

        The first member of the shaped JSON says what was kept, what projection omitted, and how to get the rest;
        the hint names the retrieval tool as Claude Code offers it (handle and cursor masked here).
    """),
    code("""
        show_envelope(json.loads(shaped.received)["_hostshape"])
    """),
    *chart_cells(without="count_tokens(notice)"),  # the notice with its paths masked, as counted above
    *way_back_cells('''
        from hostshape.testing.anthropic_server import ToolUse

        CUT_TOOL = "list_issues"
        read_name = "mcp__hostshape__hostshape_read"  # the retrieval tool, as Claude Code names MCP tools


        def read_next(server):
            """The scripted model's next step: follow the first result's next."""
            env = json.loads(server.tool_results()[0])["_hostshape"]
            return ToolUse(read_name, {"handle": env["handle"], "cursor": env["next"]})


        cut = await harness.run(CUT_TOOL, policy=policy, script=[read_next])
        first, page = cut.extra["tool_results"][:2]
    '''),
    *fires_cells("claude"),
    md("""
        ## The rescue from the saved file

        What the hook itself was given: not the result, but Claude Code's notice. The hook finds the file it names
        (only inside the session's own `tool-results` folder) and shapes the full original it holds.
    """),
    code("""
        from hostshape.adapters.claude import read_saved_result

        hook_input = shaped.extra["hook_inputs"][0]
        notice = hook_input["tool_response"]
        print("the hook received:", masked(notice.splitlines()[0]))

        saved_path = re.search(r"Output has been saved to (.+?)\\.$", notice.splitlines()[0]).group(1)
        saved = read_saved_result(saved_path, hook_input["transcript_path"])
        original = json.loads(saved)["result"]  # FastMCP's {"result": text}, as Claude Code saved it
        print(f"the saved file holds {count_tokens(saved):,} tokens; the tool's text inside: "
              f"{count_tokens(original):,} tokens, the same as the payload: {original == raw}")
        shutil.rmtree(workdir)
    """),
    CLEANUP,
]


OPENAI: list[Cell] = [
    md("""
        # hostshape in the OpenAI Agents SDK

        The OpenAI Agents SDK has no size limit of its own on tool outputs: whatever an MCP tool returns goes to the
        model. hostshape shapes every tool output in `RunConfig.call_model_input_filter`, immediately before each
        model call.

        Everything below runs offline: a real `Agent` and `Runner.run` with a scripted `Model`, and the example stdio
        MCP server through `agents.mcp.MCPServerStdio` (`hostshape.testing.openai_agents`). The model calls
        `list_pull_requests`, which returns a real recorded GitHub API payload.
    """),
    SETUP,
    TOOL_CELL,
    md("""
        ## The one-line setup

        `install(agent, policy)` gives a copy of the agent with the `hostshape_read` tool and the `Shaping` to run it
        with; `shaping(policy)` alone shapes without adding the tool:

        ```python
        agent, shaper = install(agent, policy)
        result = await Runner.run(agent, "...", **shaper.runner_kwargs())
        ```
    """),
    code("""
        from agents import Agent

        from hostshape.adapters.openai_agents import install

        agent, shaper = install(Agent(name="assistant"), policy)
        kwargs = shaper.runner_kwargs()
        print("agent tools:", [tool.name for tool in agent.tools])
        print("Runner.run kwargs:", sorted(kwargs))
        print("input filter:", type(kwargs["run_config"].call_model_input_filter).__name__)
    """),
    *before_after_cells("openai_agents", "harness.run(TOOL, policy=policy, retrieval=True)"),
    *way_back_cells('''
        CUT_TOOL = "list_issues"
        read_name = "hostshape_read"


        def script(call):
            """The scripted model: call the tool, then follow the first result's next, then answer."""
            if call.index == 0:
                return [(CUT_TOOL, {})]
            if call.index == 1:
                env = json.loads(call.output_of(CUT_TOOL))["_hostshape"]
                return [(read_name, {"handle": env["handle"], "cursor": env["next"]})]
            return "done"


        cut = await harness.run(CUT_TOOL, policy=policy, retrieval=True, steps=[script] * 3)
        last_call = cut.extra["calls"][-1]  # what the model saw on its last call: both results, as shaped
        first, page = last_call.output_of(CUT_TOOL), last_call.output_of(read_name)
    '''),
    *fires_cells("openai_agents"),
    CLEANUP,
]


LANGCHAIN: list[Cell] = [
    md("""
        # hostshape in LangChain

        LangChain has no result-size limit of its own. hostshape's `ShapeInterceptor` is a tool interceptor of
        `langchain-mcp-adapters`: it shapes the raw MCP `CallToolResult` before it becomes a `ToolMessage`, so the
        full payload never reaches the model, the message history or the checkpointer.

        Everything below runs offline: `create_agent` with a scripted chat model and tools from a real
        `MultiServerMCPClient` over the example stdio MCP server (`hostshape.testing.langchain`). The model calls
        `list_pull_requests`, which returns a real recorded GitHub API payload.
    """),
    SETUP,
    TOOL_CELL,
    md("""
        ## The one-line setup

        ```python
        interceptor, read_tool = install(policy)
        client = MultiServerMCPClient(servers, tool_interceptors=[interceptor])
        agent = create_agent(model, [*await client.get_tools(), read_tool])
        ```
    """),
    code("""
        from hostshape.adapters.langchain import install

        interceptor, read_tool = install(policy)
        print("interceptor:", type(interceptor).__name__)
        print("retrieval tool:", read_tool.name)
        print("the envelope's hint will name:", interceptor.policy.retrieval_tool)
    """),
    *before_after_cells("langchain", "harness.run(TOOL, policy=policy, retrieval=True)"),
    *way_back_cells('''
        CUT_TOOL = "list_issues"
        read_name = "hostshape_read"
        asked = []


        def follow_up(text):
            """The scripted model, given the last tool result: follow the first result's next once, then stop."""
            if asked:
                return None
            env = json.loads(text)["_hostshape"]
            asked.append(env["next"])
            return read_name, {"handle": env["handle"], "cursor": env["next"]}


        cut = await harness.run(CUT_TOOL, policy=policy, retrieval=True, follow_up=follow_up)
        first, page = cut.extra["received_all"][:2]
    '''),
    *fires_cells("langchain"),
    CLEANUP,
]


PYDANTIC_AI: list[Cell] = [
    md("""
        # hostshape in Pydantic AI

        Pydantic AI has no result-size limit of its own (usage limits only abort a run). hostshape is a
        `process_tool_call` hook on `MCPToolset`: it shapes each MCP result before the model reads it and returns a
        `ToolReturn` whose metadata keeps the statistics for the application.

        Everything below runs offline: a real `Agent` with a `FunctionModel` that plays a scripted model, and a real
        `MCPToolset` over the example stdio MCP server (`hostshape.testing.pydantic_ai`). The model calls
        `list_pull_requests`, which returns a real recorded GitHub API payload.
    """),
    SETUP,
    TOOL_CELL,
    md("""
        ## The one-line setup

        ```python
        agent = Agent(model, toolsets=install([toolset], policy=policy))               # shaping + hostshape_read
        toolset = MCPToolset(transport, process_tool_call=process_tool_call(policy))   # shaping only, no way back
        ```
    """),
    code("""
        from fastmcp.client.transports import StdioTransport
        from pydantic_ai.mcp import MCPToolset

        from hostshape.adapters.pydantic_ai import install

        toolset = MCPToolset(StdioTransport(command="github-mcp-server", args=["stdio"]), id="github")
        toolsets = install([toolset], policy=policy)
        print("toolsets:", [type(t).__name__ for t in toolsets])
        print("hook on the MCP toolset:", type(toolsets[0].process_tool_call).__name__)
    """),
    *before_after_cells("pydantic_ai", "harness.run(TOOL, policy=policy)"),
    *way_back_cells('''
        CUT_TOOL = "list_issues"
        read_name = "hostshape_read"


        def follow(texts):
            """The scripted model, given every tool result so far: follow the first result's next once."""
            if len(texts) > 1:
                return None
            env = json.loads(texts[0])["_hostshape"]
            return read_name, {"handle": env["handle"], "cursor": env["next"]}


        cut = await harness.run(CUT_TOOL, policy=policy, follow=follow)
        first, page = cut.extra["texts"][:2]
    '''),
    *fires_cells("pydantic_ai"),
    CLEANUP,
]


ADK: list[Cell] = [
    md("""
        # hostshape in Google ADK

        ADK has no result-size limit of its own; without hostshape it hands the model the dumped `CallToolResult`,
        whose FastMCP `structuredContent` repeats the text, so the model reads the payload twice. hostshape is an
        `after_tool_callback` (or an `App` plugin): the model gets `{"result": <shaped text>}`, fitted to the budget
        in the JSON-encoded form ADK's model connectors send.

        Everything below runs offline: a real `LlmAgent`, `McpToolset` over the example stdio MCP server and
        `Runner`, with a scripted `BaseLlm` (`hostshape.testing.adk`). The model calls `list_pull_requests`, which
        returns a real recorded GitHub API payload. `received` is the function response as LiteLLM sends it.
    """),
    SETUP,
    TOOL_CELL,
    md("""
        ## The one-line setup

        ```python
        hook, read_tool = install(policy)                 # the shaping callback and the hostshape_read tool
        agent = LlmAgent(..., tools=[toolset, read_tool], after_tool_callback=hook)
        # shaping only, no way back: LlmAgent(..., after_tool_callback=after_tool_callback(policy))
        ```
    """),
    code("""
        from hostshape.adapters.adk import install

        hook, read_tool = install(policy)
        print("after_tool_callback:", callable(hook))
        print("retrieval tool:", read_tool.name)
    """),
    *before_after_cells(
        "adk",
        "harness.run(TOOL, policy=policy, retrieval=True)",
        unwrap='json.loads(shaped.received)["result"]  # ADK\'s {"result": text}',
    ),
    *way_back_cells('''
        CUT_TOOL = "list_issues"
        read_name = "hostshape_read"


        def text_of(response):
            """The text inside ADK's {"result": text} function response."""
            value = json.loads(response)
            return value["result"] if isinstance(value, dict) and "result" in value else response


        def next_call(received):
            """The scripted model, given every function response so far: follow the first result's next once."""
            if len(received) > 1:
                return None
            env = json.loads(text_of(received[0]))["_hostshape"]
            return read_name, {"handle": env["handle"], "cursor": env["next"]}


        cut = await harness.run(CUT_TOOL, policy=policy, retrieval=True, next_call=next_call)
        first, page = (text_of(response) for response in cut.extra["received"][:2])
    '''),
    *fires_cells("adk"),
    CLEANUP,
]


FOLLOW_ONCE = textwrap.dedent('''
    CUT_TOOL = "list_issues"
    read_name = "hostshape_read"


    def next_call(received):
        """The scripted model, given every tool result so far: follow the first result's next once."""
        if len(received) > 1:
            return None
        env = json.loads(received[0])["_hostshape"]
        return read_name, {"handle": env["handle"], "cursor": env["next"]}
''').strip()


def host_notebook(
    title: str, intro: str, module: str, setup: str, cut_source: str, without_text: str = "without.received"
) -> list[Cell]:
    """A walkthrough for one of the hosts whose harness takes ``retrieval`` and ``next_call`` the same way:
    ``setup`` shows the install line running, ``cut_source`` runs the cut result (setting ``cut``)."""
    return [
        md(f"# hostshape in {title}\n\n" + textwrap.dedent(intro).strip()),
        SETUP,
        TOOL_CELL,
        md("## The one-line setup"),
        code(setup),
        *before_after_cells(module, "harness.run(TOOL, policy=policy, retrieval=True)", without_text=without_text),
        *way_back_cells(
            FOLLOW_ONCE + "\n\n" + textwrap.dedent(cut_source).strip() + '\nfirst, page = cut.extra["received"][:2]'
        ),
        *fires_cells(module),
        CLEANUP,
    ]


STRANDS = host_notebook(
    "Strands Agents",
    """
    Strands has no result-size limit of its own: without hostshape the model reads the whole result (its
    `structuredContent` copy stays in the result dict, not sent). hostshape is a hook provider whose
    `AfterToolCallEvent` callback replaces the result, ahead of Strands' own opt-in `ContextOffloader`.

    Everything below runs offline: a real `Agent` and `MCPClient` over the example stdio MCP server, with a
    scripted `strands.models.Model` (`hostshape.testing.strands.ScriptedModel`).
    """,
    "strands",
    """
    from hostshape.adapters.strands import install

    hooks, read_tool = install(policy)   # or install(agent, policy) on an existing Agent
    print("hook provider:", type(hooks).__name__)
    print("retrieval tool:", read_tool.tool_name)
    """,
    "cut = await harness.run(CUT_TOOL, policy=policy, retrieval=True, next_call=next_call)",
)

LLAMAINDEX = host_notebook(
    "LlamaIndex",
    """
    LlamaIndex's `McpToolSpec` tools hand the model `str(CallToolResult)`, the pydantic repr of the whole result,
    its `structured_content` copy (and any image's base64) included. hostshape gives each tool a `callback` and an
    `async_callback` that replace the output with the shaped text (images as image blocks).

    Everything below runs offline: a real `FunctionAgent` with `McpToolSpec` tools over the example stdio MCP
    server (`BasicMCPClient`), with a scripted function-calling LLM (`hostshape.testing.llamaindex.ScriptedLLM`).
    """,
    "llamaindex",
    """
    from llama_index.core.tools import FunctionTool

    from hostshape.adapters.llamaindex import install

    # tools = install(await McpToolSpec(client).to_tool_list_async(), policy)
    tools = install([FunctionTool.from_defaults(fn=lambda: "ok", name="example")], policy)
    print("tools:", [t.metadata.name for t in tools])
    """,
    "cut = await harness.run(CUT_TOOL, policy=policy, next_call=next_call)",
)

AGENT_FRAMEWORK = host_notebook(
    "Microsoft Agent Framework",
    """
    Agent Framework's `MCPTool` shows the model a result's `structuredContent` first (`structured_first`): for a
    FastMCP tool that is `{"result": "<the text, JSON-escaped>"}`, with no size limit. hostshape is a
    `FunctionMiddleware` that overwrites `context.result` with the shaped text.

    Everything below runs offline: a real `Agent` with an `MCPStdioTool` over the example stdio MCP server, with a
    scripted chat client (`hostshape.testing.agent_framework.ScriptedChatClient`).
    """,
    "agent_framework",
    """
    from hostshape.adapters.agent_framework import install

    middleware, read_tool = install(policy)   # or install(agent, policy) on an existing Agent
    print("function middleware:", type(middleware).__name__)
    print("retrieval tool:", read_tool.name)
    """,
    "cut = await harness.run(CUT_TOOL, policy=policy, next_call=next_call)",
)

AGNO = host_notebook(
    "Agno",
    """
    Agno's `MCPTools` hand the model the text of a result with no size limit. hostshape is a tool hook
    (`Agent(tool_hooks=[...])`) that wraps each call and returns the shaped result, in sync and async runs.

    Everything below runs offline: a real `Agent` with `MCPTools` over the example stdio MCP server, with a
    scripted `agno.models.base.Model` (`hostshape.testing.agno.ScriptedModel`).
    """,
    "agno",
    """
    from hostshape.adapters.agno import install

    hook, read_tool = install(policy)   # or install(agent, policy) on an existing Agent
    print("tool hook:", hook.__name__)
    print("retrieval tool:", read_tool.name)
    """,
    "cut = await harness.run(CUT_TOOL, policy=policy, next_call=next_call)",
)

CREWAI = host_notebook(
    "CrewAI",
    """
    CrewAI defers any result over 25% of the model's context window (counted as characters / 4) to a file the model
    must read back: without hostshape the model gets a notice naming that file. hostshape is an `after_tool_call`
    hook that fires before the deferral and fits the result under both the budget and that threshold.

    Everything below runs offline: a real `Agent(mcps=[MCPServerStdio(...)])` over the example stdio MCP server,
    with a scripted `BaseLLM` (`hostshape.testing.crewai.ScriptedLLM`, a 128k context window).
    """,
    "crewai",
    """
    from crewai import Agent

    from hostshape.adapters.crewai import install, uninstall
    from hostshape.testing.crewai import ScriptedLLM

    agent = install(Agent(role="r", goal="g", backstory="b", llm=ScriptedLLM()), policy)  # this agent only
    print("tools:", [t.name for t in agent.tools])
    print("hooks removed:", uninstall())
    """,
    "cut = await harness.run(CUT_TOOL, policy=policy, next_call=next_call)",
    # CrewAI names the file it deferred to with a random id (utilities/tool_result_artifacts.py:71) and the tool
    # after the server's command, a path: shown, and counted, as fixed stand-ins, so this page reads the same anywhere
    without_text=(
        're.sub(r"tool-result-[\\w-]{22}", "tool-result-" + "x" * 22, without.received)'
        '.replace(harness.tool_name(TOOL), "corpus_list_pull_requests")'
    ),
)


NOTEBOOKS: dict[str, list[Cell]] = {
    "00_core": CORE,
    "01_claude_agent_sdk": CLAUDE,
    "02_openai_agents": OPENAI,
    "03_langchain": LANGCHAIN,
    "04_pydantic_ai": PYDANTIC_AI,
    "05_google_adk": ADK,
    "06_strands_agents": STRANDS,
    "07_llamaindex": LLAMAINDEX,
    "08_agent_framework": AGENT_FRAMEWORK,
    "09_agno": AGNO,
    "10_crewai": CREWAI,
}

# The framework module each notebook needs; the frameworks' pins put some in other environments than .venv
# (pyproject.toml, [all]), so tests/test_notebooks.py skips a notebook whose framework this interpreter lacks.
REQUIRES: dict[str, str] = {
    "01_claude_agent_sdk": "claude_agent_sdk",
    "02_openai_agents": "agents",
    "03_langchain": "langchain_mcp_adapters",
    "04_pydantic_ai": "pydantic_ai.mcp",
    "05_google_adk": "google.adk",
    "06_strands_agents": "strands",
    "07_llamaindex": "llama_index.tools.mcp",
    "08_agent_framework": "agent_framework",
    "09_agno": "agno.tools.mcp",
    "10_crewai": "crewai",
}


# -- building and executing -----------------------------------------------------------------------------------------


def notebook(name: str) -> Any:
    """The unexecuted notebook ``name`` (a key of NOTEBOOKS)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, source) in enumerate(NOTEBOOKS[name]):
        cell = nbformat.v4.new_markdown_cell(source) if kind == "markdown" else nbformat.v4.new_code_cell(source)
        cell["id"] = f"c{i:02d}"  # stable ids: rebuilding changes nothing that did not change
        nb.cells.append(cell)
    return nb


def execute(nb: Any, timeout: int = TIMEOUT) -> Any:
    """Execute ``nb`` in place with an ipykernel on this interpreter, from the repository root; returns it."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    class ThisInterpreter(KernelSpecManager):
        """Every kernel name resolves to an ipykernel on sys.executable: nothing installed, nothing global."""

        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(
                argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                display_name=KERNELSPEC["display_name"],
                language="python",
            )

    class Manager(AsyncKernelManager):
        """IPC sockets instead of TCP: no port, nothing another machine can connect to."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(kernel_spec_manager=ThisInterpreter(), transport="ipc", **kwargs)

    client = NotebookClient(
        nb,
        kernel_manager_class=Manager,
        timeout=timeout,
        record_timing=False,
        resources={"metadata": {"path": str(REPO)}},
    )
    # ipykernel gives sys.stderr a file descriptor (which the MCP stdio clients hand to their server processes)
    # only outside pytest: it checks PYTEST_CURRENT_TEST (ipykernel/iostream.py:564, ipykernel 7.4.0).
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    client.execute(env=env)
    return nb


def text_outputs(nb: Any) -> list[list[str]]:
    """Per code cell, its text outputs (streams, text/plain, errors) with whitespace normalised; images skipped.
    Consecutive stream outputs count as one: where the kernel splits a cell's printing depends on timing."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        texts = []
        previous = None
        for out in cell.get("outputs", []):
            if (
                out.output_type == "stream"
                and previous is not None
                and previous.output_type == "stream"
                and previous.name == out.name
            ):
                texts[-1] = " ".join(f"{texts[-1]} {out.text}".split())
                previous = out
                continue
            previous = out
            if out.output_type == "stream":
                text = out.text
            elif out.output_type in ("execute_result", "display_data"):
                text = out.get("data", {}).get("text/plain", "")
            elif out.output_type == "error":
                text = f"{out.ename}: {out.evalue}"
            else:
                continue
            texts.append(" ".join(text.split()))
        cells.append(texts)
    return cells


def build(name: str) -> Path:
    """Write notebooks/<name>.ipynb, executed."""
    import nbformat

    path = HERE / f"{name}.ipynb"
    nb = execute(notebook(name))
    nbformat.write(nb, path)
    return path


def main(argv: list[str]) -> int:
    names = argv or list(NOTEBOOKS)
    unknown = [n for n in names if n not in NOTEBOOKS]
    if unknown:
        print(f"unknown notebook(s): {', '.join(unknown)}; known: {', '.join(NOTEBOOKS)}", file=sys.stderr)
        return 2
    for name in names:
        print(f"building {name} …", file=sys.stderr, flush=True)
        print(build(name).relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
