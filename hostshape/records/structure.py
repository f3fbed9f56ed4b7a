"""What the values of a record list say about it: which field identifies a record, which one titles it, which
one is its status, and which values are links or opaque tokens. Decided from column statistics alone (uniqueness,
length, URL-ness, presence), never from one service's field names.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostshape.tokens import Count

SAMPLE = 100  # records looked at for column statistics
CHECK = 5000  # shrunk records over which the index checks that its key alone names each
TELL_APART = 500  # records with a repeated identifier read to choose the column that tells them apart
MAX_KEY_CHARS = 80  # longer values do not identify anything a model would quote back...
MAX_ID_CHARS = 300  # ...unless a column of them, without blanks, is the only one that tells every record apart (ARNs)
ID_COLUMNS = 5000  # leading columns searched for an identifier: the search is bounded, not as wide as the records
CANDIDATES = 32  # best-ranked unique columns compared pairwise (a few records of 4,100 members: all unique)

# A scheme is short (RFC 3986 names none past 30 characters): unbounded, one 50 MB string cost a pass per look.
_URL = re.compile(r"^[a-z][a-z0-9+.-]{0,30}://", re.IGNORECASE)
_API_LINK = re.compile(
    r"^https?://(api[.-]|[^/?#]+/([^?#]*/)?(api|apis|rest)(/|$))|/v\d+(\.\d+)?/|\{[?&/]?\w", re.IGNORECASE
)
#: an ISO 8601 basic-format date-time: yyyymmdd, an optional T, hhmm[ss[.f]], an optional Z or UTC offset
_BASIC_TIME = re.compile(
    r"^\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])T?\d{4}(?:\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$"
)
_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.IGNORECASE)
_HEX = re.compile(r"^[0-9a-f]{16,}$", re.IGNORECASE)
_TOKEN = re.compile(r"^[A-Za-z0-9_+/=-]{16,}$")
_DIGIT, _UPPER, _LOWER = re.compile(r"\d"), re.compile("[A-Z]"), re.compile("[a-z]")
_LETTER = re.compile(r"[^\W\d_]")
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
_ETAG = re.compile(r'^(W/)?"[^"]{8,}"$')
# Generic words for identifiers in any API: a tie-breaker between equally good columns, never a requirement.
ID_WORD = re.compile(
    r"(^|[^a-z])(id|key|name|slug|code|number|uid|uuid|guid|address|path|filename|ref|login|username|handle|email)$"
    r"|(Id|Key|Name|ID)$"
)


def is_url(value: Any) -> bool:
    return isinstance(value, str) and _URL.match(value) is not None


def is_link_path(value: Any) -> bool:
    """A URL, or a server-relative path of three or more segments (``/api/v1/crates/regex/1.0.0/readme``)."""
    return is_url(value) or (
        isinstance(value, str)
        and value.startswith("/")
        and value.count("/") >= 3
        and not _BLANK.search(value)  # at C speed: a long value is not read a character at a time
    )


def is_api_link(value: Any) -> bool:
    """A machine link: a URL to an API host or versioned API path, or a URL template."""
    return is_url(value) and _API_LINK.search(value) is not None


def is_opaque(value: Any) -> bool:
    """A token no reader would recognise: UUID, hex hash, long mixed-case base64, quoted etag, long integer."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) >= 10**15  # snowflake-style ids; timestamps and counters stay readable
    if not isinstance(value, str):
        return False
    if _UUID.match(value) or _HEX.match(value) or _ETAG.match(value):
        return True
    if _BASIC_TIME.match(value):
        return False  # a date-time in ISO 8601's basic format (20250819013317+0000): when, readable
    if _TOKEN.match(value) and _DIGIT.search(value):
        return bool(_UPPER.search(value) and _LOWER.search(value)) or not _LETTER.search(value)
    return value.isdigit() and len(value) >= 16  # shorter digit strings are counters, ids and timestamps


def is_long_id(value: Any) -> bool:
    """A long identifier without blanks that is not a URL (an ARN, a resource path): quotable, if costly."""
    return (
        isinstance(value, str)
        and MAX_KEY_CHARS < len(value) <= MAX_ID_CHARS
        and not any(c.isspace() for c in value)
        and not is_url(value)
    )


def is_key_like(value: Any) -> bool:
    """A short scalar a model can quote: an integer, or a string without blanks (or short), not a URL."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return True
    if not isinstance(value, str) or not value or len(value) > MAX_KEY_CHARS or is_url(value):
        return False
    return " " not in value.strip() or len(value) <= 24


def dotted(record: Any, path: str) -> Any:
    """``record``'s value at a dotted ``path`` (``metadata.name``); None when absent. A member name may hold dots
    itself (``attributes.service.name``: the longest name that matches wins); a list of key/value pairs is read as
    the object it stands for, and a one-member wrapper of a scalar (``{"stringValue": "x"}``) as that scalar."""
    if isinstance(record, dict) and "." not in path:
        return _typed(record.get(path))
    parts = path.split(".")
    node = record
    for part in parts:  # the common case: each step one member of an object
        if not isinstance(node, dict) or part not in node:
            break
        node = node[part]
    else:
        return _typed(node)
    at = 0
    while at < len(parts):
        if isinstance(record, list):
            record = pairs_of(record)
        if not isinstance(record, dict):
            return None
        for end in range(len(parts), at, -1):
            name = ".".join(parts[at:end])
            if name in record:
                record, at = record[name], end
                break
        else:
            return None
    return _typed(record)


def _typed(value: Any) -> Any:
    """A one-member object holding a scalar (a typed value: ``{"stringValue": "x"}``) as the scalar."""
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        if not isinstance(inner, (dict, list)):
            return inner
    return value


def pairs_of(items: list[Any]) -> dict[str, Any] | None:
    """A list of two-member objects, one member a unique key-like name and the other its value
    (``[{"key": "env", "value": "prod"}]``), as the object it stands for; None when it is not one."""
    if not items or not all(isinstance(i, dict) and len(i) == 2 for i in items):
        return None
    keys = list(items[0])
    if any(list(i) != keys for i in items):
        return None
    for name, val in (keys, keys[::-1]):
        names = [i[name] for i in items]
        if not all(isinstance(n, str) and is_key_like(n) for n in names) or len(set(names)) != len(names):
            continue
        if len(items) == 1 or not all(isinstance(i[val], str) and len(i[val]) > 40 for i in items):
            return {i[name]: i[val] for i in items}
    return None


def columns(records: Sequence[Any], depth: int = 2, least: int = 0) -> list[str]:
    """Scalar columns of the records, in first-seen order, as dotted paths up to ``depth`` levels deep; ``least``:
    only those holding a value in at least that many of the sampled records (records of distinct members have as
    many columns as members: a search for an identifier then reads only the columns that can be one)."""
    table = _table(records)
    return [p for p in table if table.levels.get(p, 0) < depth and table.present.get(p, 0) >= least]


class _Table(dict[str, list[Any]]):
    """Column values by dotted path, with each column's nesting level (member names may hold dots)."""

    def __init__(self) -> None:
        super().__init__()
        self.levels: dict[str, int] = {}
        self.present: dict[str, int] = {}  # records holding a scalar there (the rest None)


_last: tuple[list[Any], _Table] | None = None


def _table(records: Sequence[Any]) -> _Table:
    """Column values (None where absent) of the first SAMPLE records, two levels deep. The last table is kept
    (with the records it was made from, compared by identity), since one decision asks for several statistics of
    the same records."""
    global _last
    n = min(len(records), SAMPLE)
    last = _last  # one read: another thread may replace it meanwhile
    if last is not None and len(last[0]) == n and (n == 0 or all(last[0][i] is records[i] for i in {0, n // 2, n - 1})):
        return last[1]  # the same records: kept alive by _last, so identity cannot be reused
    sample = list(records[:SAMPLE])
    table = _Table()
    for i, record in enumerate(sample):
        if isinstance(record, dict):
            _collect(record, "", 2, table, i, len(sample))
    _last = (sample, table)
    return table


def _collect(obj: dict[str, Any], prefix: str, depth: int, table: _Table, row: int, rows: int) -> None:
    for key, value in obj.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, list) and depth > 1:
            pairs = pairs_of(value)  # key/value pairs: the object they stand for, typed values as scalars
            value = {k: _typed(v) for k, v in pairs.items()} if pairs is not None else value
        if isinstance(value, dict):
            if depth > 1:
                _collect(value, f"{prefix}{key}.", depth - 1, table, row, rows)
        elif not isinstance(value, list):
            column = table.get(prefix + key)
            if column is None:
                column = table[prefix + key] = [None] * rows
                table.levels[prefix + key] = 2 - depth
            if column[row] is None and value is not None:
                table.present[prefix + key] = table.present.get(prefix + key, 0) + 1
            column[row] = value


def _values(records: Sequence[Any], path: str) -> list[Any]:
    """The values of column ``path`` over the sampled records (None where absent)."""
    table = _table(records)
    column = table.get(path)
    if column is not None:
        return column
    return [dotted(r, path) for r in records[:SAMPLE]]


@dataclass(frozen=True)
class Column:
    """Statistics of one column over a sample of records."""

    path: str
    present: int
    distinct: int
    key_like: bool
    mostly_key_like: bool
    opaque: bool
    numeric: bool
    mean_len: float
    order: int
    linked: bool = False  # the record's own links are built from it (``.../commits/{sha}``)
    qualified: bool = False  # a namespaced name (``arn:aws:...:job/x``, ``projects/p/jobs/x``): the API's own id
    level: int | None = None  # objects down (member names may hold dots: ``attributes.request.id`` is one down)

    @property
    def nested(self) -> int:
        return self.path.count(".") if self.level is None else self.level

    def rank(self) -> tuple[Any, ...]:
        """Lower is better: what the record's own links name it by (the API's id for a follow-up call), then a
        namespaced name (the API's own id), readable before opaque, own fields before nested ones, words before
        numbers, then identifier-like names, then shorter values."""
        return (
            not self.linked,
            not self.qualified,
            self.opaque,
            self.nested,
            self.numeric,
            ID_WORD.search(self.path) is None,
            self.mean_len,
            self.order,
        )


def _distinct_at_least(records: Sequence[Any], path: str, wanted: int) -> bool:
    """At least ``wanted`` distinct scalar values in the column (a cheap test before full statistics)."""
    values = _values(records, path)
    return len({v for v in values if isinstance(v, (str, int, float)) and v != ""}) >= wanted


_memo: tuple[_Table, dict[str, Column]] | None = None


def stats(records: Sequence[Any], path: str, order: int = 0) -> Column:
    """Statistics of column ``path`` over the sampled records (remembered while the same records are asked)."""
    global _memo
    table = _table(records)
    memo = _memo  # one read: another thread may replace it meanwhile
    if memo is None or memo[0] is not table:
        memo = _memo = (table, {})
    column = memo[1].get(path)
    if column is None:
        column = memo[1][path] = _stats(records, path, order)
    return column if column.order == order else replace(column, order=order)


def _stats(records: Sequence[Any], path: str, order: int) -> Column:
    values = _values(records, path)
    present = [v for v in values if v is not None and v != ""]
    hashable = [v if isinstance(v, (str, int, float, bool)) else repr(v) for v in present]
    texts = [str(v) for v in present[:50]]
    keyish = sum(is_key_like(v) and not _TIMESTAMP.match(str(v)) for v in present)
    return Column(
        path=path,
        present=len(present),
        distinct=len(set(hashable)),
        key_like=bool(present) and keyish == len(present),
        mostly_key_like=keyish * 10 >= len(present) * 9,
        opaque=bool(present) and sum(is_opaque(v) for v in present[:50]) * 2 > len(present[:50]),
        numeric=all(  # a UUID of digits only is still a token, not a count
            isinstance(v, int) or (isinstance(v, str) and not _LETTER.search(v) and not _UUID.match(v))
            for v in present[:50]
        ),
        mean_len=sum(map(len, texts)) / max(1, len(texts)),
        order=order,
        linked=_linked(records, path),
        qualified=_qualified(present),
        level=_table(records).levels.get(path),
    )


_SEPARATORS = re.compile("[:/]")
_BLANK_OR_QUERY = re.compile(r"[\s?#=&]")
_BLANK = re.compile(r"\s")


def _qualified(values: Sequence[Any]) -> bool:
    """Every value a name inside a namespace the values share: strings without blanks (no URL, server path or query),
    with a common prefix ending in ``:`` or ``/`` and at least two such separators, each with its own tail
    (``arn:aws:bedrock:us-east-1:1234:model-invocation-job/o4gs``, ``projects/p/locations/l/jobs/j``)."""
    texts = [v for v in values if isinstance(v, str)]
    if len(texts) < 2 or len(texts) < len(values) or any(is_link_path(t) or is_opaque(t) for t in texts[:20]):
        return False
    if any(t.startswith("/") or _BLANK_OR_QUERY.search(t) for t in texts):
        return False  # a server path or a query: a link, not a name
    common = _common_prefix(texts)
    cut = max(common.rfind(":"), common.rfind("/"))
    if cut < 0 or len(_SEPARATORS.findall(texts[0])) < 2 or not _LETTER.search(common[:cut]):
        return False  # no namespace, or one without a word (times of day, dates, addresses)
    return all(len(t) > cut + 1 and not _TIMESTAMP.match(t) for t in texts)


def _common_prefix(texts: Sequence[str]) -> str:
    """The longest prefix every one of ``texts`` starts with, comparing at C speed (halving, as the smallest and the
    largest of them share it): never one character at a time."""
    low, high = min(texts), max(texts)
    short, long = 0, len(low)  # low[:short] is shared; no prefix longer than long is
    while short < long:
        middle = (short + long + 1) // 2
        if high.startswith(low[:middle]):
            short = middle
        else:
            long = middle - 1
    return low[:short]


def _linked(records: Sequence[Any], path: str, sample: int = 20) -> bool:
    """Most of the sampled records carry a link (a URL member, at most one level down) with this column's value
    as a whole path segment: the API's own name for the record. A nested column's own object is left out: its
    links name what it describes (a vulnerability's advisory), not the record."""
    hits = seen = 0
    own = path.split(".", 1)[0] if "." in path else None
    for record in records[:sample]:
        value = dotted(record, path) if isinstance(record, dict) else None
        if value is None or isinstance(value, (bool, dict, list)):
            continue
        seen += 1
        text = str(value)
        if len(text) < 2:
            continue
        if any(_segment_in(url, text) for url in _urls(record, own) if url != text) or _named_below(record, own, value):
            hits += 1
    return seen > 0 and hits * 2 > seen


#: per record (by identity, while the records are the last table's) and skipped member: its links and the texts its
#: children hold, gathered once, since every column of a record asks the same (a record of 4,100 members asked
#: 4,100 times read its members 4,100 times: quadratic)
_around: tuple[object, dict[tuple[int, str | None], tuple[list[str], frozenset[str]]]] | None = None


def _record_around(record: dict[str, Any], skip: str | None) -> tuple[list[str], frozenset[str]]:
    global _around
    last = _last  # the records of the last table are kept alive by it, so their ids are not reused meanwhile
    memo = _around
    if memo is None or last is None or memo[0] is not last[1]:
        memo = _around = (last[1] if last is not None else None, {})
    key = (id(record), skip)
    found = memo[1].get(key)
    if found is None:
        urls: list[str] = []
        texts: set[str] = set()
        for name, member in record.items():
            if name == skip:
                continue
            inner = member.values() if isinstance(member, dict) else (member,)
            urls += [v for v in inner if is_link_path(v)]
            if isinstance(member, dict) and not any(is_link_path(v) for v in member.values()):
                urls += _links_below(member)
            children = member[:5] if isinstance(member, list) else [member]
            texts.update(v for c in children if isinstance(c, dict) for v in c.values() if isinstance(v, str))
        found = (urls, frozenset(texts))
        if last is not None and any(r is record for r in last[0]):
            memo[1][key] = found
    return found


def _links_below(member: dict[str, Any], sample: int = 5) -> list[str]:
    """The links one level inside an object member that holds none of its own: a link map of named links, each an
    object or a list of objects carrying the URL (``_links: {self: {href}, users: {href}, logo: [{href}]}``)."""
    out: list[str] = []
    for value in itertools.islice(member.values(), 4 * sample):
        for child in value[:sample] if isinstance(value, list) else (value,):
            if isinstance(child, dict):
                out += [v for v in child.values() if is_link_path(v)]
    return out


def _named_below(record: dict[str, Any], skip: str | None, value: Any) -> bool:
    """An object one level down (a member, or an item of a list member) names the record by ``value`` (a service's
    versions each carrying its id): children pointing at their parent."""
    if not isinstance(value, str) or len(value) < 8:
        return False
    return value in _record_around(record, skip)[1]


def _segment_in(url: str, text: str) -> bool:
    """``/text`` occurs in ``url`` as a whole path segment: followed by ``/``, ``?``, ``#``, ``.`` or the end (as
    the regex ``/text(?:[/?#.]|$)`` reads it, a final newline included), found without compiling a pattern per
    value."""
    needle = "/" + text
    at = url.find(needle)
    while at >= 0:
        end = at + len(needle)
        if end == len(url) or url[end] in "/?#." or (end == len(url) - 1 and url[end] == "\n"):
            return True
        at = url.find(needle, at + 1)
    return False


def _urls(record: dict[str, Any], skip: str | None = None) -> list[str]:
    """The links among the record's members and one level down, ``skip`` left out."""
    return _record_around(record, skip)[0]


def identifiers(records: Sequence[Any], *, exclude: Iterable[str] = ()) -> list[str]:
    """Columns that identify every record (present in each, unique, short, not a URL), best first: readable keys
    before opaque ones. Empty when no column is unique; then ``identifier`` falls back to the most distinct."""
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    if not sample:
        return []
    skip = set(exclude)
    found = []
    for order, path in enumerate(columns(sample, least=len(sample))[:ID_COLUMNS]):
        if path in skip or not _distinct_at_least(sample, path, len(sample)):
            continue
        col = stats(sample, path, order)
        unique = col.present == len(sample) and col.distinct == len(sample)
        if (
            unique
            and (col.key_like or _long_unique(sample, path))
            and not (col.numeric and moments(_values(sample, path)))
        ):
            found.append(col)  # the API's own id, however long (an ARN), competes with the short keys
    ranked = [c.path for c in sorted(found, key=Column.rank)][:CANDIDATES]
    return [p for p in ranked if not any(q != p and (_extends(sample, q, p) or _embeds(sample, p, q)) for q in ranked)]


def moments(values: Sequence[Any]) -> bool:
    """Numbers close together for their size (epoch times, in any unit): when things happened, not which."""
    nums = [
        int(v) if isinstance(v, str) else v
        for v in values
        if (isinstance(v, (int, float)) and not isinstance(v, bool)) or _epoch_digits(v)
    ]
    if len(nums) < 2 or len(nums) * 10 < len(values) * 9:
        return False
    low, high = min(nums), max(nums)
    return low >= 10**8 and high - low <= high / 1000


def _epoch_digits(value: Any) -> bool:
    """A string of ASCII digits short enough to be a time in any unit (``int`` refuses 4,300 digits and more, and
    ``"²".isdigit()`` is true)."""
    return isinstance(value, str) and len(value) <= _EPOCH_DIGITS and value.isascii() and value.isdigit()


_EPOCH_DIGITS = 30


def _long_unique(sample: Sequence[Any], path: str) -> bool:
    values = _values(sample, path)
    return (
        all(is_key_like(v) or is_long_id(v) for v in values)
        and any(is_long_id(v) for v in values)
        and len(set(values)) == len(sample)
    )


def _extends(records: Sequence[Any], longer: str, shorter: str) -> bool:
    """Every value of ``longer`` starts with, and is longer than, the value of ``shorter``: ``shorter`` is a
    fragment (a name prefix), ``longer`` the full identifier."""
    if longer.count(".") != shorter.count("."):
        return False
    for r in records:
        a, b = dotted(r, longer), dotted(r, shorter)
        if not (isinstance(a, str) and isinstance(b, str) and len(a) > len(b) and a.startswith(b)):
            return False
    return not is_opaque(dotted(records[0], longer))


def _embeds(records: Sequence[Any], link: str, key: str) -> bool:
    """Every value of ``link`` is a link path built from the value of ``key`` (a whole segment of it): ``link``
    is derived from ``key`` (``/api/v1/crates/regex/1.0.0/download`` from ``1.0.0``) and says nothing more."""
    for r in records:
        a, b = dotted(r, link), dotted(r, key)
        if not is_link_path(a) or b is None or isinstance(b, (bool, dict, list)) or len(str(b)) < 2:
            return False
        if not _segment_in(a, str(b)):
            return False
    return bool(records)


def identifier(records: Sequence[Any], *, exclude: Iterable[str] = ()) -> str | None:
    """The column that best identifies the records; failing a unique one, the most distinct key-like column
    present in most records (at least half distinct), or None."""
    unique = identifiers(records, exclude=exclude)
    if unique:
        return unique[0]
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    if len(sample) < 2:
        return None
    skip = set(exclude)
    best: tuple[Any, ...] | None = None
    for order, path in enumerate(columns(sample, least=(len(sample) + 1) // 2)[:ID_COLUMNS]):
        if path in skip or not _distinct_at_least(sample, path, (len(sample) + 1) // 2):
            continue
        col = stats(sample, path, order)
        if (
            col.mostly_key_like
            and col.present * 10 >= len(sample) * 9
            and col.distinct * 2 >= len(sample)
            and not (col.numeric and moments(_values(sample, path)))
        ):
            candidate = (-col.distinct, col.rank(), path)
            best = candidate if best is None or candidate < best else best
    return best[-1] if best else _last_resort_identifier(sample, skip)


def _last_resort_identifier(sample: Sequence[Any], skip: set[str]) -> str | None:
    """With no key-like column, a unique top-level text column in every record (a search result's URL, a
    document's title): a link a model can follow beats no identifier at all. URLs first, then shorter texts."""
    best: tuple[Any, ...] | None = None
    for order, path in enumerate(columns(sample, depth=1, least=len(sample))):
        values = _values(sample, path)
        if path in skip or not all(isinstance(v, str) and 0 < len(v) <= 300 for v in values):
            continue
        if len(set(values)) == len(sample):
            candidate = (not all(is_url(v) for v in values), sum(map(len, values)) / len(values), order, path)
            best = candidate if best is None or candidate < best else best
    return best[-1] if best else None


SPARSE = 4  # a title or status column present in one record in this many is kept: an index row's null costs a token


def title_field(records: Sequence[Any], skip: Iterable[str] = ()) -> str | None:
    """A column of readable text (words with blanks) in most records, mostly distinct: a title or summary; the
    most distinct (a label before a description several records share), then the one present in more records, then
    the one nearest 50 characters."""

    def score(path: str, values: list[Any], n: int) -> tuple[Any, ...] | None:
        texts = [v for v in values if isinstance(v, str) and v and not is_url(v)]
        if len(texts) * SPARSE < n or len(set(texts)) * 3 < len(texts) * 2:
            return None
        if len(texts) * 2 < n and Counter(texts).most_common(1)[0][1] * 3 > len(texts):
            return None  # in fewer than half the records, one text in over a third of those: a group's label
        if sum(" " in t.strip() for t in texts) * 2 < len(texts):
            return None
        mean = sum(map(len, texts)) / len(texts)
        spread = round(len(set(texts)) / len(texts), 1)  # names each record apart, first
        presence = round(len(texts) / n, 1)  # then one every record has (a label before a description some lack)
        return None if mean > 200 else (path.count("."), -spread, -presence, abs(mean - 50))

    return _best_column(records, skip, score)


def status_field(records: Sequence[Any], skip: Iterable[str] = (), spread: Sequence[Any] = ()) -> str | None:
    """A column of a few short words, each beginning with a letter, repeated across records (open/closed, Running,
    ok): a status. Words before codes of three letters or fewer (a network's ``nc``), then the one with more
    values; never a column nearly constant (see ``nearly_constant``; ``spread``: the whole list, when ``records``
    are its first part)."""

    def score(path: str, values: list[Any], n: int) -> tuple[Any, ...] | None:
        words = [v for v in values if isinstance(v, str) and v[:1].isalpha() and len(v) <= 24 and " " not in v]
        distinct = len(set(words))
        if n < 3 or len(words) * SPARSE < n or not 2 <= distinct <= max(2, min(8, n // 2)):
            return None
        if any(_DIGIT.search(w) for w in words) or nearly_constant(words, spread or records, path):
            return None
        return (path.count("."), all(len(w) <= 3 for w in set(words)), -distinct)

    return _best_column(records, skip, score)


def _best_column(
    records: Sequence[Any], skip: Iterable[str], score: Callable[[str, list[Any], int], tuple[Any, ...] | None]
) -> str | None:
    """The column with the lowest ``score(path, values, records sampled)`` (None: not a candidate); ties go to
    the column seen first."""
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    skipped = set(skip)
    best: tuple[Any, ...] | None = None
    for order, path in enumerate(columns(sample, depth=2, least=-(-len(sample) // SPARSE))):
        if path in skipped:
            continue
        scored = score(path, _values(sample, path), len(sample))
        if scored is not None and (best is None or (*scored, order) < best[:-1]):
            best = (*scored, order, path)
    return best[-1] if best else None


def record_keys(records: Sequence[Any], count: Count, *, exclude: Iterable[str] = ()) -> tuple[str | None, str | None]:
    """The identifier and a second column quoted beside it: when the identifier is not unique, the column that
    makes the pair most distinct (a flattened record's parent); else another identifier-named column, at least
    nine in ten distinct, whose values differ from the identifier's (an API's own id beside a readable key, an
    issue number beside a global id). Pass every record: a key unique in the sample is checked to be unique over
    all of them (a set over one column), and replaced by another identifier unique over them, or paired with the
    column that tells its repeats apart (chosen on the first TELL_APART of them)."""
    key = identifier(records, exclude=exclude) or identifier(records)
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    if key is None or not sample:
        return key, None
    key, repeats = _checked(records, sample, key, exclude)
    if repeats is not None:
        return key, _telling_apart(repeats, sample, key)
    refs = [r for r in exclude if r in _table(sample)]
    if refs and not identifiers(sample, exclude=exclude):  # unique only within its parent (a flattened group)
        within = _unique_within(sample, refs[-1])
        if within is not None:
            return within, refs[-1]
    human = _cheaper_human_key(sample, key, set(exclude), count)
    if human is not None:
        return human, key
    key_values = _values(records, key)
    unique = len({repr(v) for v in key_values}) == len(sample)
    best: tuple[Any, ...] | None = None
    for path, col in _key_like_beside(sample, key):
        values = _values(records, path)
        if values == key_values or col.distinct < 2:  # a constant says nothing about which record it is
            continue
        if _embeds(sample, path, key):  # a link built from the key
            continue
        if unique:
            if ID_WORD.search(path) is None or col.distinct * 10 < len(sample) * 9:
                continue
            candidate: tuple[Any, ...] = (0, col.rank(), path)
        else:
            pairs = len({(repr(a), repr(b)) for a, b in zip(key_values, values, strict=True)})
            if pairs <= len({repr(v) for v in key_values}):
                continue  # tells no two records with the same identifier apart
            candidate = (-pairs, ID_WORD.search(path) is None, col.rank(), path)
        best = candidate if best is None or candidate < best else best
    return key, (best[-1] if best else None)


def _checked(
    records: Sequence[Any], sample: Sequence[Any], key: str, exclude: Iterable[str]
) -> tuple[str, list[Any] | None]:
    """``key`` when it is unique over every record too, else another identifier of the sample that is; failing
    both, ``key`` and the first TELL_APART records whose value of it repeats (or is missing) among the first
    2 x TELL_APART: a sample to learn from, read in time bounded by TELL_APART."""
    if len(records) <= len(sample):
        return key, None
    objects = [r for r in records if isinstance(r, dict)]
    if unique_over(objects, key):
        return key, None
    others = [p for p in identifiers(sample, exclude=exclude) if p != key and unique_over(objects, p)]
    if others:
        return others[0], None
    head = objects[: 2 * TELL_APART]
    keys = [repr(v) for v in _column(head, key)]
    counts = Counter(keys)
    return key, [r for r, k in zip(head, keys, strict=True) if counts[k] > 1][:TELL_APART]


def unique_over(records: Sequence[Any], path: str) -> bool:
    """``path`` has a scalar value in every one of ``records``, no two the same: a set over one column."""
    values = _column(records, path)
    kinds = set(map(type, values))
    if kinds == {str} or kinds == {int}:
        return len(set(values)) == len(values)
    if any(v is None or isinstance(v, (dict, list)) for v in values):
        return False
    return len(set(map(repr, values))) == len(values)  # 1, 1.0 and True are one set member, three values


def _column(records: Sequence[Any], path: str) -> list[Any]:
    """``dotted(r, path)`` of every record, read directly when ``path`` is one member name."""
    if "." in path:
        return [dotted(r, path) for r in records]
    if set(map(type, records)) == {dict}:  # read at C speed: every record a plain object
        values = list(map(dict.get, records, itertools.repeat(path)))
    else:
        values = [r.get(path) if isinstance(r, dict) else dotted(r, path) for r in records]
    return [_typed(v) for v in values] if any(issubclass(t, dict) for t in set(map(type, values))) else values


def _telling_apart(repeats: Sequence[Any], sample: Sequence[Any], key: str) -> str | None:
    """The key-like own column present in nine records in ten that, beside ``key``, tells most of ``repeats``
    (records whose ``key`` repeats: a record whose key is its own is told apart by any column) apart (a chart's
    name beside a version two charts share); None when none tells any two apart."""
    keys = [repr(v) for v in _column(repeats, key)]
    best: tuple[Any, ...] | None = None
    for path, col in _key_like_beside(sample, key):
        pairs = len({(k, repr(v)) for k, v in zip(keys, _column(repeats, path), strict=True)})
        if pairs > len(set(keys)) and (best is None or (-pairs, col.rank(), path) < best):
            best = (-pairs, col.rank(), path)
    return best[-1] if best else None


def _key_like_beside(sample: Sequence[Any], key: str) -> Iterator[tuple[str, Column]]:
    """(path, stats) of each key-like own column but ``key`` present in nine records of ``sample`` in ten."""
    for order, path in enumerate(columns(sample, depth=1)[:ID_COLUMNS]):
        if path == key:
            continue
        col = stats(sample, path, order)
        if col.mostly_key_like and col.present * 10 >= len(sample) * 9:
            yield path, col


def _cheaper_human_key(sample: Sequence[Any], key: str, skip: set[str], count: Count) -> str | None:
    """A readable column (words, blanks allowed, at most MAX_KEY_CHARS, any depth sampled) unique and present in
    every record, that lists the records in no more tokens than the opaque ``key`` (or a key built around an opaque
    part, a resource path ending in a UUID): the cheaper complete listing, and one a reader can use. None when
    ``key`` is readable or no such column exists."""
    key_values = _values(sample, key)
    if not (stats(sample, key).opaque or all(_has_opaque_part(v) for v in key_values)):
        return None
    if any(is_long_id(v) for v in key_values):
        return None  # the API's own long id (an ARN) is what a follow-up call needs: it stays first
    from hostshape.output.render import dumps

    cost = count(dumps(key_values))
    best: tuple[int, int, str] | None = None
    for order, path in enumerate(columns(sample)):
        if path == key or path in skip:
            continue
        values = _values(sample, path)
        if not all(
            isinstance(v, str)
            and 0 < len(v) <= MAX_KEY_CHARS
            and not is_url(v)
            and not is_opaque(v)
            and _LETTER.search(v)
            and not _TIMESTAMP.match(v)
            for v in values
        ):
            continue
        if len(set(values)) < len(sample):
            continue
        mine = count(dumps(values))
        if mine <= cost and (best is None or (mine, order) < best[:2]):
            best = (mine, order, path)
    return best[-1] if best else None


ANY_OF = "|"  # a coalesced column: the first of these members present in a record


def coalesced_identifier(records: Sequence[Any]) -> str | None:
    """For records of several kinds (an event feed: ``user_id`` / ``order_no`` / ``event``), members each unique
    and key-like where present, that together give every record exactly one identifier: ``"user_id|order_no"``.
    None when no such set exists (or one member alone would do)."""
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    if len(sample) < 3 or len(sample) < len(records[:SAMPLE]):
        return None
    chosen: list[str] = []
    covered = [False] * len(sample)
    for _order, path in enumerate(columns(sample, depth=1)):
        values = _values(sample, path)
        present = [i for i, v in enumerate(values) if v is not None and v != ""]
        if not present or any(covered[i] for i in present):
            continue
        mine = [values[i] for i in present]
        if len({repr(v) for v in mine}) < len(mine) or not all(is_key_like(v) for v in mine):
            continue
        if len(mine) < 2 or (is_opaque(mine[0]) and len(present) < len(sample) // 2):
            continue
        chosen.append(path)
        for i in present:
            covered[i] = True
        if all(covered):
            return ANY_OF.join(chosen) if len(chosen) > 1 else None
    return None


def _unique_within(sample: Sequence[Any], parent: str) -> str | None:
    """The best readable key-like column unique among the records of each parent: with the parent's column it
    identifies every record (a machine type's name within its zone)."""
    parents = _values(sample, parent)
    best: tuple[Any, ...] | None = None
    for order, path in enumerate(columns(sample, depth=1)):
        if path == parent:
            continue
        col = stats(sample, path, order)
        if col.present < len(sample) or not col.key_like or col.opaque or col.distinct < 2:
            continue
        values = _values(sample, path)
        if len({(repr(a), repr(b)) for a, b in zip(parents, values, strict=True)}) == len(sample):
            candidate = (col.rank(), path)
            best = candidate if best is None or candidate < best else best
    return best[-1] if best else None


def _has_opaque_part(value: Any) -> bool:
    return isinstance(value, str) and any(is_opaque(part) for part in re.split(r"[/:|@#]", value))


SHORT_COLUMNS = 4  # short varying columns an index carries beside identifier, title and status, room allowing
_SHORT_CHARS = 32
_RARE_CHARS = 5  # a nearly constant column is kept only when in every record and this short (a flag)


def short_columns(
    records: Sequence[Any], skip: Iterable[str] = (), most: int = SHORT_COLUMNS, spread: Sequence[Any] = ()
) -> list[str]:
    """Columns worth a place in an index: short scalars (names, dates, amounts, states) present in most records,
    that vary between them, are no link, no opaque token and no part of a composite value (a date given as its
    year, month, ... microsecond); in the records' own order, own members first, then short flags one value in
    nearly every record (their rare other values are the exceptions a reader asks about: a yanked release)."""
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    if len(sample) < 2:
        return []
    skipped = set(skip)
    found: list[tuple[bool, int, int, str]] = []
    for order, path in enumerate(columns(sample, depth=2)):
        if path in skipped:
            continue
        values = [v for v in _values(sample, path) if v is not None and v != ""]
        if len(values) * 10 < len(sample) * 8 or len({repr(v) for v in values}) < 2:
            continue
        texts = [str(v) for v in values]
        if "." in path and _composite(sample, path.rsplit(".", 1)[0]):
            continue  # a part of one value (a date's minute), not a field
        if sum(map(len, texts)) > _SHORT_CHARS * len(texts) or any(is_url(v) or is_opaque(v) for v in values[:20]):
            continue
        rare = nearly_constant(values, spread or records, path)  # its rare other values: exceptions (a yanked release)
        if rare and (len(texts) < len(sample) or sum(map(len, texts)) > _RARE_CHARS * len(texts)):
            continue
        found.append((rare, _table(sample).levels.get(path, 0), order, path))
    chosen: list[str] = []
    shown = [p for p in skipped if p in _table(sample)]
    for *_, path in sorted(found):
        if len(chosen) == most:
            break
        if not any(_repeats(sample, path, other) or _same_groups(sample, path, other) for other in (*shown, *chosen)):
            chosen.append(path)
    return chosen


def _same_groups(sample: Sequence[Any], path: str, other: str) -> bool:
    """``path`` and ``other`` repeat their values in lockstep (each value of one goes with one value of the other,
    and most records share theirs with another: a service offering's id beside its name): one says what the
    other says."""
    mine, theirs = [repr(v) for v in _values(sample, path)], [repr(v) for v in _values(sample, other)]
    distinct = len(set(mine))
    return distinct * 2 <= len(sample) and distinct == len(set(theirs)) == len(set(zip(mine, theirs, strict=True)))


_NEARLY = 0.95  # a column whose most common value is in this share of the records says little about any one


_PROBES = 20  # records read across a list longer than the sample, before a column is called nearly constant


def nearly_constant(values: Sequence[Any], records: Sequence[Any] = (), path: str = "") -> bool:
    """One value in nearly every sampled record (``is_general`` false in 99 of 100): no help to tell records
    apart. When the list is longer than the sample, records spread over all of it are read too: a list sorted by
    the column (a chart name, the second of which begins past the sample) is not constant."""
    if not values:
        return True
    top, count = Counter(repr(v) for v in values).most_common(1)[0]
    if count < _NEARLY * len(values):
        return False
    if len(records) <= SAMPLE or not path:
        return True
    step = max(1, len(records) // _PROBES)
    probes = [dotted(r, path) for r in records[::step][:_PROBES] if isinstance(r, dict)]
    return sum(repr(v) == top for v in probes if v is not None and v != "") >= _NEARLY * max(1, len(probes)) - 1


def _repeats(sample: Sequence[Any], path: str, other: str) -> bool:
    """In nine records of ten or more, ``path``'s value is ``other``'s, or holds it, or is its start (up to a
    separator), or is part of it when that is text with blanks (a normalized name beside the name, a list of ids
    holding the id, a display form cut from the full version, a place inside a title): nothing an index row needs
    twice. Another part of an identifier (a resource's name after its type in its address) is not, nor a value that
    makes ``other`` more precise (see ``_refines``: a version's build number after the release it starts with)."""
    mine, theirs = _values(sample, path), _values(sample, other)
    hits = 0
    for a, b in zip(mine, theirs, strict=False):
        if a is None or b is None or isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
            continue
        x, y = str(a), str(b)
        if x == y or (
            min(len(x), len(y)) >= 3 and (_start_of(x, y) or (y in x and not _refines(x, y)) or (x in y and " " in y))
        ):
            hits += 1
    return hits * 10 >= len(sample) * 9


def _start_of(shorter: str, longer: str) -> bool:
    """``shorter`` is how ``longer`` begins, up to a separator (a display form cut from a full version, the name a
    generated name was made from): reading ``longer`` reads it."""
    if len(shorter) >= len(longer) or not longer.startswith(shorter):
        return False
    return not (shorter[-1].isalnum() and longer[len(shorter)].isalnum())


_REFINEMENT = re.compile(r"[.+_-][\w.+-]*\d[\w.+-]*")  # a build or patch suffix: 9.0.0-preview.5 -> .24306.7


def _refines(longer: str, shorter: str) -> bool:
    """``longer`` is ``shorter`` made more precise by a suffix holding a digit after a separator (a version's build
    number): it says more than the column it starts with."""
    return longer.startswith(shorter) and _REFINEMENT.fullmatch(longer[len(shorter) :]) is not None


def _composite(sample: Sequence[Any], parent: str) -> bool:
    """The object at ``parent`` is one value given in parts: three or more integer members and at most one
    other (a type tag), in the sampled records that have it (a date as year, month, day, ..., a version triple)."""
    seen = 0
    for record in sample[:20]:
        obj = dotted(record, parent)
        if not isinstance(obj, dict):
            continue
        seen += 1
        ints = sum(isinstance(v, int) and not isinstance(v, bool) for v in obj.values())
        if ints < 3 or ints < len(obj) - 1:
            return False
    return seen > 0


def index_columns(
    records: Sequence[Any],
    count: Count,
    keys: tuple[str | None, str | None] | None = None,
    spread: Sequence[Any] = (),
) -> list[list[str]]:
    """Index layouts to try, widest first, each a subset of the widest in its order: identifier, a second
    identifier (see ``record_keys``; pass ``keys`` when they were found before the records were shrunk), a title, a
    status, short columns. ``spread``: the whole list when ``records`` are its first part (a column constant in
    them may vary further on). Empty when the records have no identifier."""
    key, alt = keys if keys is not None else record_keys(records, count)
    if key is None:
        key = coalesced_identifier(records)
        if key is None:
            return []
    wide = [key] + ([alt] if alt else [])
    title = title_field(records, skip=wide)
    if title:
        wide.append(title)
    status = status_field(records, skip=wide, spread=spread)
    if status:
        wide.append(status)
    extra = short_columns(records, skip=wide, spread=spread)
    wide += extra
    # Columns go before rows, one at a time: the short ones costliest first (a date before an amount: the cheap ones
    # answer as much per row), the status, then an opaque second identifier (before the title a reader can use),
    # then the title, then the second identifier.
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    drop = [
        c
        for c in (
            *_drop_order(sample, extra, count),
            status,
            alt if alt and stats(records, alt).opaque else None,
            title,
            alt,
        )
        if c
    ]
    if alt and not unique_over(records[:CHECK], key):
        drop = [c for c in drop if c != alt]  # the key names a record only with the second column beside it
    layouts = [wide]
    for column in dict.fromkeys(drop):
        narrower = [c for c in layouts[-1] if c != column]
        if column == title and len(layouts) > 1:
            restorable = [c for c in wide if c in narrower or c in extra or c == status]
            layouts += _without_title(narrower, restorable, list(dict.fromkeys(drop)))
        layouts.append(narrower)
    if alt and (_costly(sample, key, alt) or _cheaper_alone(records, sample, key, alt, count)):
        layouts.append([alt])  # no room for the key beside every record: the other identifier alone, if it lists more
    return layouts


def _without_title(narrower: list[str], restorable: list[str], drop: list[str]) -> list[list[str]]:
    """Layouts to try before ``narrower`` (the columns left once the title goes): the short columns and the status
    given up for the title's room (``restorable``, in the widest layout's order) back, given up again in the same
    order. A title costs many short columns' tokens: where it does not fit beside every record, a status or a date
    may."""
    layouts: list[list[str]] = []
    current = restorable
    for column in drop:
        if current == narrower:
            break
        if column in current and column not in narrower:
            layouts.append(current)
            current = [c for c in current if c != column]
    return layouts


def _drop_order(sample: Sequence[Any], extra: list[str], count: Count) -> list[str]:
    """The short columns in the order an index gives them up: measurements (numbers, dates, codes) costliest in
    tokens first, since a cheaper one answers as much per row; then labels (words that say what a record is),
    last found first."""
    from hostshape.output.render import dumps

    def is_label(path: str) -> bool:
        values = [v for v in _values(sample, path) if isinstance(v, str) and v]
        return bool(values) and all(_LETTER.search(v) and not _TIMESTAMP.match(v) for v in values)

    labels = [c for c in extra if is_label(c)]
    measures = [c for c in extra if c not in labels]
    cost = {c: count(dumps(_values(sample, c))) for c in measures}
    return sorted(measures, key=lambda c: (-cost[c], -extra.index(c))) + labels[::-1]


def _costly(sample: Sequence[Any], key: str, alt: str) -> bool:
    """``key`` is a long namespaced id (an ARN) and ``alt`` a readable key, unique too, at most half as long:
    a listing by ``alt`` names every record where one by ``key`` would not."""
    if not (stats(sample, key).qualified or any(is_long_id(v) for v in _values(sample, key))):
        return False
    col = stats(sample, alt)
    unique = col.present == len(sample) == col.distinct
    return unique and col.key_like and not col.opaque and col.mean_len * 2 <= stats(sample, key).mean_len


_ALONE_SHARE = 0.7  # the second identifier alone is tried when its listing costs at most this share of the key's


def _cheaper_alone(records: Sequence[Any], sample: Sequence[Any], key: str, alt: str, count: Count) -> bool:
    """``alt`` names every record on its own (unique over them, key-like) and a listing of it costs at most
    ``_ALONE_SHARE`` of one of ``key`` (a number beside a long name): where no listing by ``key`` fits, one by
    ``alt`` may list every record. Costs are counted on the sample."""
    col = stats(sample, alt)
    if not (col.key_like and col.present == len(sample) == col.distinct and unique_over(records[:CHECK], alt)):
        return False
    from hostshape.output.render import dumps

    return count(dumps(_values(sample, alt))) <= _ALONE_SHARE * count(dumps(_values(sample, key)))


_ENTRY_PRESENT = 0.9  # a column beside a map key is present in this share of the entries at least...
_ENTRY_SPREAD = 0.2  # ...with distinct values in this share of them at least


def entry_layout(records: Sequence[Any], widest: Sequence[str], map_key: str, count: Count) -> list[str] | None:
    """For records that are a map's entries (``map_key`` holds each entry's map key, its name): the layout of a
    listing of some of them, the key and the shortest column of ``widest`` that varies (a fifth of its values
    distinct), is present in nearly every entry and is no part of the name, the most distinct first (the version
    a lockfile pins before a flag), when listing it beside the key at most doubles the listing's tokens; None when
    there is no such column (or the key is not the first)."""
    sample = [r for r in records[:SAMPLE] if isinstance(r, dict)]
    if len(sample) < 2 or not widest or widest[0] != map_key:
        return None
    best: tuple[float, float, int, str] | None = None
    for order, path in enumerate(widest[1:]):
        values = [v for v in _values(sample, path) if v is not None and v != ""]
        if len(values) < _ENTRY_PRESENT * len(sample) or any(isinstance(v, (dict, list)) for v in values):
            continue
        if len({repr(v) for v in values}) < max(2, _ENTRY_SPREAD * len(values)):
            continue  # a handful of values (a flag, a build date) sort the entries, they do not describe each
        if _within_key(sample, path, map_key):
            continue  # a part of the name (a platform inside a download's name) says nothing more
        spread = -round(len({repr(v) for v in values}) / len(values), 1)
        mean = sum(len(str(v)) for v in values) / len(values)
        best = min(best, (spread, mean, order, path)) if best is not None else (spread, mean, order, path)
    if best is None:
        return None
    from hostshape.output.render import dumps

    keys = [[r.get(map_key)] for r in sample]
    pairs = [[r.get(map_key), dotted(r, best[-1])] for r in sample]
    if count(dumps(pairs)) > 2 * count(dumps(keys)):
        return None
    return [map_key, best[-1]]


def _within_key(sample: Sequence[Any], path: str, key: str) -> bool:
    """In nine entries of ten, ``path``'s value is written inside the entry's ``key``."""
    hits = sum(str(dotted(r, path)) in str(r.get(key)) for r in sample if dotted(r, path) is not None and r.get(key))
    return hits * 10 >= len(sample) * 9
