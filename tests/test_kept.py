"""What a run's claim checks keep of its captures (citelint/links/kept.py): the same findings with it as without.

Each end-to-end test runs one ``citelint check`` over several reports (a run),
then the same run with nothing kept for the run (no index of the sources'
texts, no kept searches, flattened texts, explanations or numbers), and
expects the same output, byte for byte.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import citelint.links.kept as kept
from citelint.cli import main
from citelint.links.kept import RunKept, SourceIndex, longest_piece, run_kept
from citelint.store.captures import CaptureRecord, Store, make_record
from citelint.store.writer import write_capture

ACT = "https://example.org/act.txt"
NEWS = "https://example.org/news.txt"
X = "https://example.org/x.txt"
Y = "https://example.org/y.txt"
WIDE = "https://example.org/wide.txt"
ACT_TEXT = "Section 3. Employees are entitled to a refund of 0.43 EUR per kilometre. The Act was amended in 2012."
NEWS_TEXT = "The minister said the refund will rise next year."
QUOTE = "commuting costs are a burden on rural households"


def _project(root: Path, sources: list[str]) -> None:
    (root / "citelint.yaml").write_text(json.dumps({"sources": sources, "labels": {}, "markdown": ["reports/*.md"]}),
                                        encoding="utf-8")


def _capture(root: Path, source: str, text: str, when: str = "2026-01-01T00:00:00Z") -> CaptureRecord:
    record = make_record(source, text, retrieved_at=when)
    write_capture(root / "captures", record)
    return record


def _run(root: Path, reports: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    for name, markdown in reports.items():
        path = root / "reports" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(markdown, encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "--format", "json"], stdout=out, stderr=err) in (0, 1), err.getvalue()
    return out.getvalue()


def _run_both(root: Path, reports: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CL205/CL206 messages of one run, after checking that a run keeping nothing prints the same."""
    kept_output = _run(root, reports, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(kept, "NEWEST_KEPT_CHARS", 0)  # no index: the search reads the captures one by one
        m.setattr(kept, "KEPT_DERIVED_CHARS", 0)
        m.setattr(kept, "KEPT_NUMBERS", 0)
        m.setattr("citelint.links.claims.KEPT_NUMBERS", 0)
        assert _run(root, reports, monkeypatch) == kept_output
    findings = json.loads(kept_output)["findings"]
    return [f"{f['path']}:{f['line']}: {f['rule']} {f['message']}" for f in findings if f["rule"] in ("CL205", "CL206")]


# ----------------------------------------------------------------- the index and its parts

def test_longest_piece_is_what_every_capture_holding_the_quotation_holds() -> None:
    assert longest_piece(["a bc defg", "hij"], False) == "defg"
    assert longest_piece(["abc", "defghi,"], True) == "defghi"  # the final "," may be absent
    assert longest_piece(["abc", "defghi,"], False) == "defghi,"
    assert longest_piece([" "], False) == ""


def test_source_index_finds_each_capture_holding_a_piece_once_in_order(tmp_path: Path) -> None:
    """Texts of one, two and four bytes a character joined: a piece is found in each text holding
    it (once, however often it occurs there), never across the NUL between two texts."""
    store = Store(tmp_path)
    texts = {ACT: "abc abc 𝔘 end", NEWS: "straße abc", X: "ab", Y: "c abc"}
    records = [make_record(source, text) for source, text in texts.items()]
    for r in records:
        write_capture(tmp_path, r)
    index = SourceIndex.build(store, RunKept(), list(texts))
    assert index is not None and index.chars == sum(map(len, texts.values()))
    assert [s for s, _ in index.holding("abc")] == [ACT, NEWS, Y]
    assert [s for s, _ in index.holding("end")] == [ACT]
    assert [s for s, _ in index.holding("straße")] == [NEWS]
    assert [s for s, _ in index.holding("𝔘 end")] == [ACT]
    assert list(index.holding("abcab")) == [] and list(index.holding("end\u2028")) == []
    assert [s for s, _ in index.holding("bc")] == [ACT, NEWS, Y]


def test_the_index_is_not_built_past_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path)
    for source in (ACT, NEWS):
        write_capture(tmp_path, make_record(source, "twelve chars"))
    monkeypatch.setattr(kept, "NEWEST_KEPT_CHARS", 24)
    assert SourceIndex.build(store, RunKept(), [ACT, NEWS]) is not None
    monkeypatch.setattr(kept, "NEWEST_KEPT_CHARS", 23)
    assert SourceIndex.build(store, RunKept(), [ACT, NEWS]) is None
    assert run_kept(store) is run_kept(store) and run_kept(store) is not run_kept(Store(tmp_path))


def test_derived_text_is_kept_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept, "KEPT_DERIVED_CHARS", 10)
    run = RunKept()
    assert run.keep(6) and not run.keep(5) and run.keep(4) and not run.keep(1)


# ----------------------------------------------------------------- end to end

@pytest.mark.parametrize("first, second", [("a.md", "b.md"), ("b.md", "a.md")])
def test_a_search_is_answered_for_the_sources_it_cites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       first: str, second: str) -> None:
    """One quotation missed in two reports of a run: citing ACT, it is found in X (first in config
    order); citing X's older revision, which lacks it, X is a cited source and Y is named."""
    _project(tmp_path, [ACT, X, Y])
    _capture(tmp_path, ACT, ACT_TEXT)
    old = _capture(tmp_path, X, "An older page without the sentence.", when="2025-01-01T00:00:00Z")
    x = _capture(tmp_path, X, f"Parliament noted that {QUOTE} across the country.")
    y = _capture(tmp_path, Y, f"A copy: {QUOTE}.")
    found = _run_both(tmp_path, {
        first: f"He said “{QUOTE}” [1]({ACT}).\n",
        second: f'He said “{QUOTE}” [1]({X} "capture:{old.sha256}").\n'}, monkeypatch)
    assert len(found) == 2
    by_report = dict(f.split(": ", 1) for f in found)
    assert f"it occurs in the capture of '{X}' (capture {x.sha256[:12]}\u2026)" in by_report[f"reports/{first}:1"]
    assert f"it occurs in the capture of '{Y}' (capture {y.sha256[:12]}\u2026)" in by_report[f"reports/{second}:1"]


@pytest.mark.parametrize("holding_first", [True, False])
def test_tied_revisions_are_searched_in_digest_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     holding_first: bool) -> None:
    """X has two revisions tied for newest (two groups), one holding the quotation, its digest
    sorting first or last: the search reads the tied revisions by digest and names the one
    holding it; with both holding it, the first by digest."""
    _project(tmp_path, [ACT, X])
    _capture(tmp_path, ACT, ACT_TEXT)
    holding = make_record(X, f"A copy: {QUOTE}.", retrieved_at="2026-01-01T00:00:00Z")
    other = next(r for r in (make_record(X, f"Copy {n} without it.", retrieved_at="2026-01-01T00:00:00Z")
                             for n in range(100)) if (r.sha256 > holding.sha256) is holding_first)
    for record in (holding, other):
        write_capture(tmp_path / "captures", record)
    found = _run_both(tmp_path, {"a.md": f"He said “{QUOTE}” [1]({ACT}).\n"}, monkeypatch)
    assert len(found) == 1
    assert f"it occurs in the capture of '{X}' (capture {holding.sha256[:12]}\u2026)" in found[0]
    both = make_record(X, f"Another copy: {QUOTE}.", retrieved_at="2026-01-01T00:00:00Z")
    write_capture(tmp_path / "captures", both)
    first = min((holding, both), key=lambda r: r.sha256)
    found = _run_both(tmp_path, {"a.md": f"He said “{QUOTE}” [1]({ACT}).\n"}, monkeypatch)
    assert f"it occurs in the capture of '{X}' (capture {first.sha256[:12]}\u2026)" in found[0]


def test_a_quotation_found_elsewhere_by_a_non_ascii_piece_across_whitespace_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The longest piece is not ASCII, a source before the one holding it has characters beyond
    the BMP (the joined texts are then four bytes a character), and the capture holding it has
    line breaks, tabs and runs of spaces where the quotation has one space."""
    quote = "Überschwemmungsgefährdete Straßen – so der Bericht – bleiben gesperrt"
    _project(tmp_path, [ACT, WIDE, X])
    _capture(tmp_path, ACT, ACT_TEXT)
    _capture(tmp_path, WIDE, "𝔘𝔫𝔦𝔠𝔬𝔡𝔢: Überschwemmungsgefährdete Straßen sind offen.")
    x = _capture(tmp_path, X, "Meldung:\n\nÜberschwemmungsgefährdete   Straßen\n– so der\tBericht –\r\n"
                              " bleiben  gesperrt.")
    found = _run_both(tmp_path, {"a.md": f"Es heißt, „{quote}“ [1]({ACT}).\n",
                                 "b.md": f"Es heißt, „{quote}“ [1]({WIDE}).\n"}, monkeypatch)
    assert len(found) == 2
    assert all(f"it occurs in the capture of '{X}' (capture {x.sha256[:12]}\u2026)" in f for f in found)


def test_a_page_break_is_no_whitespace_run_for_the_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, [ACT, X, Y])
    _capture(tmp_path, ACT, ACT_TEXT)
    _capture(tmp_path, X, "commuting costs are a burden on\frural households")
    found = _run_both(tmp_path, {"a.md": f"He said “{QUOTE}” [1]({ACT}).\n"}, monkeypatch)
    assert len(found) == 1 and "it occurs in the capture of" not in found[0]


def test_each_capture_explains_its_own_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One misquotation against two captures, in two reports each: each report's message
    explains it against the capture it cites."""
    _project(tmp_path, [ACT, NEWS])
    _capture(tmp_path, ACT, ACT_TEXT)
    _capture(tmp_path, NEWS, "Employees are entitled to a refund of 0.34 EUR, the minister said.")
    wrong = "Employees are entitled to a refund of 0.45 EUR per kilometre"
    found = _run_both(tmp_path, {f"{n}.md": f"It says “{wrong}” [1]({source}).\n"
                                 for n, source in (("a", ACT), ("b", NEWS), ("c", ACT), ("d", NEWS))}, monkeypatch)
    messages = [f.split(": ", 1)[1] for f in found]
    assert len(messages) == 4 and messages[0] == messages[2] and messages[1] == messages[3]
    assert "0.43 EUR" in messages[0] and "0.34 EUR" in messages[1]


def test_a_number_is_looked_up_in_each_capture_it_cites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, [ACT, NEWS])
    _capture(tmp_path, ACT, ACT_TEXT)
    _capture(tmp_path, NEWS, NEWS_TEXT)
    found = _run_both(tmp_path, {
        "a.md": f"The Act was amended in 2012 [1]({ACT}). The minister spoke in 2012 [2]({NEWS}).\n",
        "b.md": f"In 2012 the minister spoke [1]({NEWS}). In 2012 the Act was amended [2]({ACT}).\n"}, monkeypatch)
    assert [f.split(": CL206 ")[0] for f in found] == ["reports/a.md:1", "reports/b.md:1"]
    assert all(f"does not occur in the capture of '{NEWS}'" in f for f in found)


def test_nothing_is_kept_from_one_run_for_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs in one process, a capture added between them: the second run searches afresh."""
    _project(tmp_path, [ACT, X])
    _capture(tmp_path, ACT, ACT_TEXT)
    _capture(tmp_path, X, "A page without the sentence.", when="2025-01-01T00:00:00Z")
    reports = {"a.md": f"He said “{QUOTE}” [1]({ACT}).\n"}
    first = json.loads(_run(tmp_path, reports, monkeypatch))["findings"]
    assert len(first) == 1 and "it occurs in the capture of" not in first[0]["message"]
    x = _capture(tmp_path, X, f"The newer page: {QUOTE}.")
    second = json.loads(_run(tmp_path, reports, monkeypatch))["findings"]
    assert f"it occurs in the capture of '{X}' (capture {x.sha256[:12]}\u2026)" in second[0]["message"]


def test_a_corrupt_capture_holding_the_quotation_is_never_named(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """X's only capture file holds the quotation but fails verification (its text altered after
    it was written): the search names Y, the next source whose capture verifies and holds it."""
    _project(tmp_path, [ACT, X, Y])
    _capture(tmp_path, ACT, ACT_TEXT)
    x = _capture(tmp_path, X, "Parliament noted that commuting costs are a burden on urban households.")
    path = Store(tmp_path / "captures").revisions(X)[0].path
    path.write_text(path.read_text(encoding="ascii").replace("urban", "rural"), encoding="ascii")
    assert QUOTE in path.read_text(encoding="ascii") and x.sha256 in path.name
    y = _capture(tmp_path, Y, f"A copy: {QUOTE}.")
    found = _run_both(tmp_path, {"a.md": f"He said “{QUOTE}” [1]({ACT}).\n"}, monkeypatch)
    assert len(found) == 1
    assert f"it occurs in the capture of '{Y}' (capture {y.sha256[:12]}\u2026)" in found[0]


def test_each_capture_is_read_once_by_a_run_that_searches_every_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missed quotation in the first report reads the newest revision of every approved
    source (the search of other sources); a later report's link to one of them verifies it
    from what that search kept, not by reading its capture file again (an audit hook counts
    the opens)."""
    import os
    import sys

    import audit

    sys.dont_write_bytecode = True
    sources = [f"https://example.org/doc/{i}.txt" for i in range(12)]  # more than the store's last 4 lookups
    _project(tmp_path, sources)
    for i, source in enumerate(sources):
        _capture(tmp_path, source, f"Document {i} says that the figures for year {2000 + i} were revised.")
    reports = {"a.md": f'The page says "{QUOTE} in every region" [1]({sources[0]}).\n',
               "b.md": f"As the second document says [1]({sources[1]}).\n"}
    with audit.watching() as events:
        output = _run(tmp_path, reports, monkeypatch)
    assert '"CL205"' in output
    folder = os.path.realpath(tmp_path / "captures")
    opened = [p for p, _ in events.opened if p.startswith(folder + os.sep) and p.endswith(".json")]
    assert len(opened) == len(set(opened)) == len(sources), opened
