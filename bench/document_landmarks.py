"""The landmarks of each corpus document: what an outline of it must name, derived without hostshape.

``python -m bench.document_landmarks`` rewrites ``bench/documents_landmarks.toml`` from the documents listed in
``bench/documents.toml``. The rules are deliberately simple and independent of hostshape's document engine (regular
expressions, the standard library's HTML, XML and ``ast`` parsers, PyYAML), one per kind:

- markdown, markdown-page (a page converted whole), html: the headings (ATX and setext outside code fences;
  ``<h1>``-``<h6>`` outside scripts, styles, navigation and sidebars),
  as many levels as keep them to at most ``MAX_LANDMARKS`` (at least the top level);
- feed: the title of every item (RSS) or entry (Atom);
- junit: the name of every failed or errored test, the suite holding each, the total number of tests, and every
  suite's name when there are at most ``MAX_SUITES``;
- pom: the project's artifactId, every module, every profile id and every build plugin's artifactId;
- workflow: the workflow's name and every job id;
- helm-values: every top-level key;
- k8s-manifests: the kind and name of every document (a pair: both must show, near each other);
- source: the top-level definitions (Python classes and functions; Go types and functions; Rust items at column
  0), and the methods too while the total stays within ``MAX_LANDMARKS``;
- diff: every file the diff touches (its new path);
- aria: every heading's name, and every named control (button, textbox, combobox...) and named link with its ref
  (a pair: what a model needs to act on it), while within ``MAX_LANDMARKS`` (headings and controls first);
- log: chosen by hand in ``bench/documents.toml`` (``landmarks = [...]``): the build's stages or steps, its error
  and warning lines and its result line; a log has no syntax a simple script could read them from.

A landmark is a string, or a list of strings that must all appear within a few lines of each other (see
``bench/documents.py``, ``found``).
"""

from __future__ import annotations

import ast
import html
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import yaml

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "bench" / "documents.toml"
OUT = ROOT / "bench" / "documents_landmarks.toml"
MAX_LANDMARKS = 120
MAX_SUITES = 60

Landmark = str | list[str]


# a heading's permalink symbols (``¶``, ``§``, ``◆``, an icon font's private-use glyph) are not its title
_PERMALINK = re.compile(r"^[¶§◆#\u200b\ue000-\uf8ff\s]+|[¶§◆#\u200b\ue000-\uf8ff\s]+$")  # and a zero-width space


def _clean(text: str) -> str:
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML (anchors before headings)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](url) -> text
    return _PERMALINK.sub("", " ".join(html.unescape(text).split())).strip()


def _by_level(items: list[tuple[int, str]]) -> tuple[list[str], str]:
    """The items of the shallowest levels that together stay within MAX_LANDMARKS (at least one level)."""
    levels = sorted({lvl for lvl, _ in items})
    keep = levels[:1]
    for lvl in levels[1:]:
        if sum(1 for x, _ in items if x <= lvl) > MAX_LANDMARKS:
            break
        keep.append(lvl)
    deepest = max(keep) if keep else 0
    chosen = _dedup([t for lvl, t in items if lvl <= deepest and t])
    return chosen, f"levels <= {deepest} ({len(chosen)} distinct of {len(items)})"


def _dedup(xs: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for x in xs:
        key = repr(x)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def markdown(text: str) -> tuple[list[Landmark], str]:
    items: list[tuple[int, str]] = []
    fence: str | None = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m.group(1)[0]
            elif m.group(1)[0] == fence:
                fence = None
            continue
        if fence:
            continue
        m = re.match(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            items.append((len(m.group(1)), _clean(m.group(2))))
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        prev_blank = i == 0 or not lines[i - 1].strip()
        if (
            line.strip()
            and prev_blank
            and re.match(r"^ {0,3}(=+|-+)\s*$", nxt)
            and not re.match(r"^\s*([-*+>|]|\d+\.)", line)
        ):
            items.append((1 if nxt.strip()[0] == "=" else 2, _clean(line)))
    chosen, rule = _by_level(items)
    return list(chosen), f"headings, {rule}"


class _Headings(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[tuple[int, str]] = []
        self._level = 0
        self._buf: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "nav", "aside"):  # a site's navigation and sidebars are not the page's
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self._level, self._buf = int(tag[1]), []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "nav", "aside"):
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) and self._level and not self._skip:
            title = " ".join("".join(self._buf).split())
            self.items.append((self._level, _PERMALINK.sub("", title).strip()))
            self._level = 0

    def handle_data(self, data: str) -> None:
        if self._level and not self._skip:
            self._buf.append(data)


def html_doc(text: str) -> tuple[list[Landmark], str]:
    parser = _Headings()
    parser.feed(text)
    chosen, rule = _by_level(parser.items)
    return list(chosen), f"headings, {rule}"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def feed(text: str) -> tuple[list[Landmark], str]:
    root = ET.fromstring(text.lstrip().encode("utf-8"))
    titles = []
    for node in root.iter():
        if _local(node.tag) in ("item", "entry"):
            title = next((c for c in node if _local(c.tag) == "title"), None)
            if title is not None:
                titles.append(_clean("".join(title.itertext())))
    return _dedup([t for t in titles if t]), f"item titles ({len(titles)})"


def junit(text: str) -> tuple[list[Landmark], str]:
    root = ET.fromstring(text.lstrip().encode("utf-8"))
    suites = [s for s in root.iter("testsuite") if s.find("testcase") is not None]
    failed: list[Landmark] = []
    failed_suites: list[str] = []
    total = 0
    for suite in suites:
        for case in suite.iter("testcase"):
            total += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed.append(case.get("name", ""))
                failed_suites.append(suite.get("name", ""))
    named = [s.get("name", "") for s in suites] if len(suites) <= MAX_SUITES else failed_suites
    out = _dedup([*failed, *named, str(total)])
    return out, f"{len(failed)} failed tests, {len(set(named))} suites of {len(suites)}, total {total}"


def pom(text: str) -> tuple[list[Landmark], str]:
    root = ET.fromstring(text.lstrip().encode("utf-8"))
    ns = {"m": root.tag[1:].split("}")[0]} if root.tag.startswith("{") else {}
    p = "m:" if ns else ""
    out = [root.findtext(f"{p}artifactId", default="", namespaces=ns)]
    out += [m.text or "" for m in root.iterfind(f".//{p}modules/{p}module", ns)]
    out += [x.text or "" for x in root.iterfind(f".//{p}profiles/{p}profile/{p}id", ns)]
    out += [x.text or "" for x in root.iterfind(f".//{p}plugins/{p}plugin/{p}artifactId", ns)]
    marks: list[Landmark] = _dedup([x.strip() for x in out if x and x.strip()])
    return marks, f"artifactId, modules, profile ids, plugin artifactIds ({len(marks)})"


def workflow(text: str) -> tuple[list[Landmark], str]:
    doc = yaml.safe_load(text)
    out: list[Landmark] = [str(doc.get("name", ""))] if doc.get("name") else []
    out += [str(job) for job in (doc.get("jobs") or {})]
    return out, f"name and job ids ({len(out)})"


def helm_values(text: str) -> tuple[list[Landmark], str]:
    doc = yaml.safe_load(text)
    out: list[Landmark] = [str(k) for k in doc]
    return out, f"top-level keys ({len(out)})"


def k8s(text: str) -> tuple[list[Landmark], str]:
    out: list[Landmark] = []
    for doc in yaml.safe_load_all(text):
        if isinstance(doc, dict) and doc.get("kind"):
            out.append([str(doc["kind"]), str((doc.get("metadata") or {}).get("name", ""))])
    return out, f"kind and name of every document ({len(out)})"


def source(text: str) -> tuple[list[Landmark], str]:
    items: list[tuple[int, str]] = []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = None
    if tree is not None:
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                items.append((1, node.name))
                if isinstance(node, ast.ClassDef):
                    items += [(2, m.name) for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    elif re.search(r"^package \w+", text, re.M):  # Go
        for m in re.finditer(r"^(?:type (\w+)|func (\w+)|func \([^)]*\) (\w+))", text, re.M):
            items.append((2, m.group(3)) if m.group(3) else (1, m.group(1) or m.group(2)))
    else:  # Rust
        kinds = "struct|enum|trait|fn|type|mod|const|static|macro_rules!"
        item = rf"(?:pub(?:\([\w:]+\))? )?(?:async )?(?:unsafe )?(?:{kinds}) ?(\w+)"
        for m in re.finditer(rf"^( {{0,8}}){item}", text, re.M):
            items.append((1 if not m.group(1) else 2, m.group(2)))
    chosen, rule = _by_level(items)
    return list(chosen), f"definitions, {rule}"


def diff(text: str) -> tuple[list[Landmark], str]:
    files = re.findall(r"^diff --git a/\S+ b/(\S+)", text, re.M)
    return _dedup(files), f"files ({len(files)})"


_CONTROLS = "button|textbox|searchbox|combobox|checkbox|radio|switch|slider|spinbutton|tab|menuitem|option"


def aria(text: str) -> tuple[list[Landmark], str]:
    first: list[Landmark] = []
    links: list[Landmark] = []
    for m in re.finditer(r'^\s*- (\w+) "((?:[^"\\]|\\.)*)"[^\n]*?\[ref=(\w+)\]', text, re.M):
        role, name, ref = m.groups()
        if role == "heading":
            first.append(name)  # a heading is read, not acted on: its name is the landmark
        elif re.fullmatch(_CONTROLS, role):
            first.append([name, ref])
        elif role == "link":
            links.append([name, ref])
    out = first + links[: max(0, MAX_LANDMARKS - len(first))]
    return out, f"headings and named controls ({len(first)}), named links ({len(out) - len(first)} of {len(links)})"


RULES = {
    "markdown": markdown,
    "markdown-page": markdown,
    "html": html_doc,
    "feed": feed,
    "junit": junit,
    "pom": pom,
    "workflow": workflow,
    "helm-values": helm_values,
    "k8s-manifests": k8s,
    "source": source,
    "diff": diff,
    "aria": aria,
}


def derive(kind: str, text: str) -> tuple[list[Landmark], str]:
    return RULES[kind](text)


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def _toml_item(x: Landmark) -> str:
    return _toml_str(x) if isinstance(x, str) else "[" + ", ".join(_toml_str(p) for p in x) + "]"


def render(spec: dict[str, Any]) -> str:
    out = [
        "# Generated by `python -m bench.document_landmarks` from the documents in bench/documents.toml; do not edit.",
        "# The rule for each kind is in bench/document_landmarks.py. Logs' landmarks are chosen by hand in",
        "# bench/documents.toml instead.",
        "",
    ]
    for doc in spec["document"]:
        if doc["kind"] not in RULES:
            continue
        text = (ROOT / doc["file"]).read_text(encoding="utf-8")
        marks, rule = derive(doc["kind"], text)
        out += ["[[document]]", f"file = {_toml_str(doc['file'])}", f"rule = {_toml_str(rule)}", "landmarks = ["]
        out += [f"  {_toml_item(m)}," for m in marks]
        out += ["]", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    spec = tomllib.loads(SPEC.read_text(encoding="utf-8"))
    OUT.write_text(render(spec), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
