"""Round 16: entities of an external DTD kept as written, elements titled by their attributes, and leading
comments attached to the block they precede."""

from __future__ import annotations

from hostshape.documents import commented, xml


def test_an_entity_of_an_external_dtd_is_kept_not_refused() -> None:
    text = (
        '<?xml version="1.0" ?>\n<!DOCTYPE log SYSTEM "log.dtd">\n<log>\n'
        + "".join(
            f'<release ver="1.{n}.0" date="2024-01-0{n}">\n<change><para>a &mdash; b</para></change>\n</release>\n'
            for n in range(9, 0, -1)
        )
        + "</log>\n"
    )
    out = xml.outline(text)
    assert out is not None and not out.notes
    assert out.entries[0].title == 'release ver="1.9.0" date="2024-01-09" (1)'
    assert out.entries[0].name == "1.9.0"
    assert [e.name for e in out.entries if e.level == 1][-1] == "1.1.0"


def test_an_undeclared_entity_without_a_dtd_is_still_malformed() -> None:
    out = xml.outline("<log>\n  <a>x &mdash; y</a>\n</log>\n")
    assert out is not None and out.notes and "not well-formed" in out.notes[0]


def test_an_internal_entity_declaration_is_still_refused() -> None:
    bomb = '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n<x>&b;</x>\n'
    out = xml.outline(bomb)
    assert out is not None and "refused" in out.notes[0]


def test_leading_comments_and_descriptions_belong_to_the_block_below() -> None:
    text = "\n".join(
        [
            'syntax = "proto3";',
            "",
            "// The first message.",
            "// It says much.",
            "message First {",
            "  string a = 1;",
            "}",
            "/* The second. */",
            "message Second {",
            "}",
            "",
            '"""',
            "A type described",
            "on two lines.",
            '"""',
            "type Third {",
            "}",
            '"""One line."""',
            "type Fourth {",
            "}",
            "message Fifth {",
            "}",
        ]
    )
    out = commented.outline(text)
    assert out is not None
    starts = {e.title: e.start for e in out.entries}
    assert starts == {"message First": 3, "message Second": 8, "type Third": 12, "type Fourth": 18, "message Fifth": 21}
