"""One fixed check result through every output format, compared with the
goldens in tests/output/golden/ (README.md there says how to regenerate)."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import pytest

from citelint.model import AcceptedFact, CheckResult, Finding, FixedLink
from citelint.output import FORMATTERS, RenderOptions, renderer

GOLDEN = Path(__file__).resolve().parent / "golden"
REGEN = os.environ.get("CITELINT_REGEN") == "1"
OPTIONS = RenderOptions(version="0.0.0-golden")

SHA_Q3 = "33dd503bd2a3ee1074ce46556083e14753a8130162feccbe5c11214686262921"
SHA_NOTES = "83b8b7e015b1edc1ba0c0a4930fab7e99c7258e389fff034645ee38ace8e9a50"


def fixed_result() -> CheckResult:
    """A result touching every part a format renders: a whole-file finding,
    non-ASCII and escapable text (``%``, ``:``, ``,``), a multi-line span, a
    warning with an end column, notices, both kinds of accepted fact, a link
    removed by --fix, a free-text warning and counts."""
    return CheckResult(
        findings=[
            Finding("reports/q3.json", 14, 18, "CL105", "warning",
                    "snippet is only 3 characters (fewer than 20); quote enough to identify the passage",
                    end_line=14, end_col=23),
            Finding("reports/q3.json", 8, 18, "CL104", "error",
                    "snippet not found in capture 83b8b7e015b1…: near miss (curly vs straight quotes): at snippet "
                    "character 6 the snippet has U+0022 QUOTATION MARK where the capture has U+201C LEFT DOUBLE "
                    "QUOTATION MARK (“we sold 17 items” at 12%); copy the text exactly from the capture"),
            Finding("reports/notes,v2.md", 3, 5, "CL201", "error",
                    "ungrounded link https://invented.example/a:b: no captured source has this identity; "
                    "capture the source, add it to `links.allow`, or remove the link (`--fix`)",
                    end_line=4, end_col=12),
            Finding("reports/broken.json", 1, 1, "CL001", "error",
                    "file is not valid UTF-8: byte 0xff at offset 0 (invalid start byte); save it as UTF-8"),
        ],
        notices=[
            Finding("reports/q3.yaml", 3, 5, "CL901", "notice",
                    "label 'headcount' is not verified by citelint, only the excerpt: "
                    "check that the snippet supports this label"),
            Finding("reports/q3.json", 3, 5, "CL901", "notice",
                    "label 'revenue' is not verified by citelint, only the excerpt: "
                    "period 'Q3 2026' does not appear in the snippet"),
        ],
        accepted=[
            AcceptedFact("reports/q3.json", 3, 5, "cited", "revenue", source="https://example.org/q3.txt",
                         capture_sha256=SHA_Q3, snippet="revenue rose 12% to $4.1 million", offset=16,
                         review=("period 'Q3 2026' does not appear in the snippet",),
                         retrieved_at="2026-07-02T09:30:00Z", context=("Q3 report, says ", " in the quarter.")),
            AcceptedFact("reports/q3.yaml", 3, 5, "cited", "headcount", source="https://example.org/notes.txt",
                         capture_sha256=SHA_NOTES, snippet="The café said “we sold 17 items”", offset=0),
            AcceptedFact("reports/q3.json", 20, 5, "unavailable", "sales", reason="not published for Q3"),
        ],
        files=4,
        facts_cited=3,
        facts_unavailable=1,
        links=3,
        links_governed=3,
        links_grounded=1,
        fixed=[FixedLink("reports/notes,v2.md", 7, 12, "CL201", "error", "https://invented.example/x")],
        warnings_text=["links.allow is empty and no source is captured: every link is ungrounded"],
    )


def summary_render() -> Callable[[CheckResult, TextIO, RenderOptions], None]:
    """The summary formatter, from the registry once it is listed there."""
    if "summary" in FORMATTERS:
        return renderer("summary")
    from citelint.output import summary

    return summary.render


def render(fmt: str, options: RenderOptions = OPTIONS) -> str:
    out = io.StringIO()
    (summary_render() if fmt == "summary" else renderer(fmt))(fixed_result(), out, options)
    return out.getvalue()


def neutral_token(text: str) -> str:
    """Replace the github format's stop-commands token with ``<token>``.

    The token is random on every run by design: were it predictable, text in
    a report could print ``::<token>::`` and end the block early. The test
    checks it is present and random-looking, then compares the rest exactly.
    """
    tokens = re.findall(r"^::stop-commands::(.*)$", text, flags=re.M)
    assert len(tokens) == 1 and re.fullmatch(r"[0-9a-f]{32}", tokens[0]), text
    assert text.count(f"\n::{tokens[0]}::\n") == 1
    return text.replace(tokens[0], "<token>")


#: Golden file, how the rendered text is compared (None: exactly), render options.
CASES: dict[str, tuple[str, Callable[[str], object] | None, RenderOptions]] = {
    "text": ("text.txt", None, OPTIONS),
    "text-quiet": ("text-quiet.txt", None, RenderOptions(version=OPTIONS.version, quiet=True)),
    "github": ("github.txt", neutral_token, OPTIONS),
    "json": ("json.json", json.loads, OPTIONS),
    "sarif": ("sarif.json", json.loads, OPTIONS),
    "summary": ("summary.md", None, OPTIONS),
}


def test_every_registered_format_has_a_golden() -> None:
    assert set(FORMATTERS) <= set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_format_golden(case: str) -> None:
    name, normalise, options = CASES[case]
    got = render(case.removesuffix("-quiet"), options)
    path = GOLDEN / name
    if normalise is neutral_token:
        got = neutral_token(got)
    if REGEN:
        path.parent.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8", newline="")
    expected = path.read_text(encoding="utf-8")
    if normalise is json.loads:
        assert json.loads(got) == json.loads(expected)
    else:
        assert got == expected


def test_text_never_colours_without_being_asked() -> None:
    assert "\x1b" not in render("text")
