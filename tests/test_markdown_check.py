"""Markdown reports through `citelint check`, beyond the golden cases in
tests/cases/: the empty-allowlist warning, `--fix` end to end, regressions."""

from __future__ import annotations

import os

from conftest import SOURCE_A, Repo


def test_empty_allowlist_is_reported(repo: Repo) -> None:
    repo.config(sources=[], labels=["inventory"])
    repo.write("reports/a.md", "See [x](https://example.org/a.txt).\n")
    run = repo.check()
    assert run.code == 1 and "the link allowlist is empty" in run.out


def test_fix_degrades_ungrounded_links_and_touches_nothing_else(repo: Repo) -> None:
    captures_before = {p: p.read_bytes() for p in (repo.root / "captures").rglob("*") if p.is_file()}
    original = (f"Keep [good]({SOURCE_A}).\r\nDrop [bad](https://invented.example/x) and "
                "<https://invented.example/y>.\r\n")
    path = repo.write("reports/a.md", original)
    fact_report = repo.report(repo.cited(snippet="not in the capture at all"))
    fact_before = fact_report.read_bytes()
    run = repo.check("--fix")
    # What was removed is reported, not counted as findings; the fact report's error stays.
    assert run.code == 1 and run.findings("CL201") == [] and len(run.findings("CL104")) == 1, run.out
    assert run.out.count(": fixed CL201 removed link to") == 2
    fixed = path.read_bytes().decode()
    assert fixed == f"Keep [good]({SOURCE_A}).\r\nDrop bad and `https://invented.example/y`.\r\n"
    # Idempotent, and fact reports and captures are never written.
    again = repo.check("--fix")
    assert path.read_bytes().decode() == fixed and ": fixed " not in again.out
    assert fact_report.read_bytes() == fact_before
    assert {p: p.read_bytes() for p in (repo.root / "captures").rglob("*") if p.is_file()} == captures_before
    assert not [n for n in os.listdir(path.parent) if n.startswith(".citelint-fix-")]


def test_entities_are_decoded_once(repo: Repo) -> None:
    """Regression: "&amp;amp;" renders to a link whose query holds "&amp;"; it is
    not the captured "?a=1&b=2". A source written with "&amp;" (copied from
    HTML) does match a link to "&" (seed 002's HTML-entity equivalence)."""
    src = "https://example.org/q?a=1&b=2"
    repo.config(sources=[SOURCE_A, src, "https://example.org/r?a=1&amp;b=2"], labels=["inventory"])
    repo.capture(src, "q text")
    repo.capture("https://example.org/r?a=1&amp;b=2", "r text")
    repo.write("reports/a.md", "[ok](https://example.org/q?a=1&amp;b=2) "
                               "[bad](https://example.org/q?a=1&amp;amp;b=2) "
                               "[ok too](https://example.org/r?a=1&b=2)\n")
    run = repo.check()
    (line,) = run.findings("CL201")
    assert line.startswith("reports/a.md:1:47: CL201")


def test_a_corrupt_capture_does_not_ground_a_link(repo: Repo) -> None:
    """Regression: an empty file named like a capture made its source count as captured."""
    from citelint.store.captures import source_dir

    src = "https://uncaptured.example/x"
    repo.config(sources=[SOURCE_A, src], labels=["inventory"])
    directory = source_dir(repo.root / "captures", src)
    directory.mkdir()
    (directory / ("0" * 64 + ".json")).write_bytes(b"")
    repo.write("reports/a.md", f"See [x]({src}).\n")
    run = repo.check()
    # Not grounded, and reported as the corrupt evidence it is (CL103), so --fix keeps the link.
    assert run.code == 1 and len(run.findings("CL103")) == 1 and not run.findings("CL201")
    assert "1 link (0 grounded)" in run.out


def test_ignore_query_params_is_opt_in_and_strips_both_sides(repo: Repo) -> None:
    """OpenAI appends ?utm_source=openai to every URL it cites: off by default the
    link is ungrounded; with links.ignore_query_params it matches the capture, and
    only the named parameter is ignored."""
    src = "https://example.org/a?id=7&utm_source=feed"
    repo.config(sources=[SOURCE_A, src], labels=["inventory"])
    repo.capture(src, "a text")
    repo.write("reports/a.md", "[one](https://example.org/a?id=7&utm_source=openai)\n\n"
                               "[two](https://example.org/a?utm_source=x&id=7)\n\n"
                               "[three](https://example.org/a?id=8&utm_source=openai)\n\n"
                               f"[four]({SOURCE_A}?utm_source=openai)\n")
    assert [f.split(": CL201")[0] for f in repo.check().findings("CL201")] == \
        ["reports/a.md:1:7", "reports/a.md:3:7", "reports/a.md:5:9", "reports/a.md:7:8"]
    repo.config(sources=[SOURCE_A, src], labels=["inventory"], links={"ignore_query_params": ["utm_source"]})
    run = repo.check()
    # Parameter order still counts (id=7 after utm_source is the same query once it is gone);
    # another id is another page.
    assert [f.split(": CL201")[0] for f in run.findings("CL201")] == ["reports/a.md:5:9"], run.out


def test_ignore_query_params_must_be_names(repo: Repo) -> None:
    repo.config(links={"ignore_query_params": ["utm_source=openai"]})
    run = repo.check()
    assert run.code == 2 and "ignore_query_params" in run.out + run.err
