"""Claims in prose checked against the cited captures: CL205 quotations, CL206 numbers (issue 24).

The end-to-end tests run ``citelint check`` in-process on real projects
whose captures are written by citelint's own writer.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from citelint.cli import main
from citelint.excerpts import flatten, nearest, occurs
from citelint.fingerprints import quotation_fingerprint
from citelint.store.captures import CaptureRecord, make_record
from citelint.store.writer import write_capture
from conftest import corpus_path

REPO_ROOT = Path(__file__).resolve().parents[1]
ACT = "https://example.org/act.txt"
NEWS = "https://example.org/news.txt"
OTHER = "https://example.org/other.txt"
ACT_TEXT = ("Section 3. Employees are entitled to a refund of 0.43 EUR per kilometre\n"
            "for the use of a personal car, if no adequate public transport is available.\n"
            "The employer shall pay the refund within 30 days. The Act was amended in 2012.")
NEWS_TEXT = "The minister said: the refund will rise to 1,000 euros per year for 12.5 percent of commuters."
OTHER_TEXT = "Parliament noted that commuting costs are a burden on rural households across the country."


# ----------------------------------------------------------------- matching

def test_flatten_maps_back_to_the_capture() -> None:
    text = "a  b\n\n\tc d\fe"
    flat = flatten(text)
    assert flat.text == "a b c d\fe"
    for i, ch in enumerate(flat.text):
        if ch != " ":
            assert text[flat.original(i)] == ch


@pytest.mark.parametrize("segments, gaps, optional_end, expected", [
    (["a refund of 0.43 EUR"], [], False, True),
    (["a refund of 0.44 EUR"], [], False, False),
    (["per kilometre for the use"], [], False, True),  # a line break in the capture is one space
    (["Employees are entitled", "within 30 days"], [1000], False, True),
    (["within 30 days", "Employees are entitled"], [1000], False, False),  # out of order
    (["Employees are entitled", "within 30 days"], [20], False, False),  # the gap is too long
    (["The Act was amended in 2012."], [], False, True),
    (["if no adequate public transport is available,"], [], True, True),  # the "," may be absent
    (["if no adequate public transport is available;"], [], True, False),  # a ";" may not
    (["if no adequate public transport is available."], [], True, True),
    (["within 30 days,"], [], True, True),  # a "," just inside the closing mark may be absent
    (["within 30 days,"], [], False, False),
])
def test_occurs(segments: list[str], gaps: list[int], optional_end: bool, expected: bool) -> None:
    assert occurs(flatten(ACT_TEXT), segments, gaps, optional_end) is expected


def test_no_gap_or_whitespace_run_crosses_a_page_break() -> None:
    flat = flatten("first page ends here\fsecond page starts here")
    assert not occurs(flat, ["page ends here second page"], [], False)
    assert not occurs(flat, ["first page", "second page"], [1000], False)
    assert occurs(flat, ["first page", "ends here"], [1000], False)


def test_nearest_passage() -> None:
    text = "Budget report. The audit found the program cost the state roughly $449,000 in its first year."
    assert "cost the state roughly $449,000" in nearest(text, "the program cost the state roughly $500,000 in")
    assert nearest(text, "nothing of this is there at all") == ""


# ----------------------------------------------------------------- end to end

class Project:
    """A project on disk: config, captures written by citelint's writer, one Markdown report."""

    def __init__(self, root: Path, **config: object) -> None:
        self.root = root
        data: dict[str, object] = {"sources": [ACT, NEWS, OTHER], "labels": {}, "markdown": ["reports/*.md"]}
        data.update(config)
        (root / "citelint.yaml").write_text(json.dumps(data), encoding="utf-8")

    def capture(self, source: str, text: str, when: str = "2026-01-01T00:00:00Z") -> CaptureRecord:
        record = make_record(source, text, retrieved_at=when)
        write_capture(self.root / "captures", record)
        return record

    def check(self, markdown: str, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, list[str]]:
        path = self.root / "reports" / "a.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(markdown, encoding="utf-8")
        monkeypatch.chdir(self.root)
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
        out, err = io.StringIO(), io.StringIO()
        code = main(["check", *args], stdout=out, stderr=err)
        assert err.getvalue() == ""
        return code, [ln for ln in out.getvalue().splitlines() if ": CL" in ln]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.act = p.capture(ACT, ACT_TEXT)  # type: ignore[attr-defined]
    p.news = p.capture(NEWS, NEWS_TEXT)  # type: ignore[attr-defined]
    p.other = p.capture(OTHER, OTHER_TEXT)  # type: ignore[attr-defined]
    return p


def test_genuine_quotations_pass(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    code, found = project.check("\n\n".join([
        f"The Act says “Employees are entitled to a refund of 0.43 EUR per kilometre” [1]({ACT}).",
        f'It adds that "The employer shall pay the refund within 30 days." [2]({ACT})',
        f"«Employees are entitled … within 30 days» [1]({ACT})",
        f"> Employees are entitled to a refund of 0.43 EUR per\n> kilometre for the use of a personal car\n\n"
        f"— the Act, [section 3]({ACT})",
        f"She said “*the refund* will rise to 1,000 euros per year” [1]({NEWS}) [2]({ACT}).",
        f"Both say “The employer shall pay the refund within 30 days” [1]({NEWS}) [2]({ACT}).",
        f"It says that “Employees are entitled [to a refund] of 0.43 EUR per kilometre” [1]({ACT}).",
        f"Code is not quoted: `“this is not a quotation at all, really”` [1]({ACT}).",
    ]) + "\n", monkeypatch)
    assert (code, found) == (0, [])


def test_injected_quotation_is_cl205_with_what_the_source_says(project: Project,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    code, found = project.check(
        f"The Act states that “Employees are entitled to a refund of 0.18 EUR per kilometre” [1]({ACT}).\n",
        monkeypatch)
    assert code == 1
    assert len(found) == 1 and found[0].startswith("reports/a.md:1:21: CL205 ")
    assert "does not occur verbatim in its cited source" in found[0]
    assert project.act.sha256[:12] in found[0]  # type: ignore[attr-defined]
    assert "the first 40 characters of the quotation occur" in found[0]
    assert "the capture has: 'Section 3. Employees are entitled to a refund of 0.43 EUR" in found[0]


def test_quotation_pointed_at_another_source_names_it(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    code, found = project.check(f"He said “commuting costs are a burden on rural households” [1]({ACT}).\n",
                                monkeypatch)
    assert code == 1
    assert f"it occurs in the capture of '{OTHER}' (capture {project.other.sha256[:12]}\u2026): cite that source" \
        in found[0]  # type: ignore[attr-defined]


@pytest.mark.parametrize("order", [(ACT, NEWS, OTHER, "https://example.org/copy.txt"),
                                   (ACT, "https://example.org/copy.txt", NEWS, OTHER)])
def test_the_other_source_named_is_the_first_in_config_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             order: tuple[str, ...]) -> None:
    """Two other sources hold the missed quotation, and another has every word of it but one
    apart: the search names the first holding it in config order, whichever that is."""
    copy = "https://example.org/copy.txt"
    p = Project(tmp_path, sources=list(order))
    p.capture(ACT, ACT_TEXT)
    p.capture(NEWS, "Commuting costs are a burden, on rural households: noted, but not quoted.")
    other = p.capture(OTHER, OTHER_TEXT)
    second = p.capture(copy, "A copy: " + OTHER_TEXT, when="2026-02-01T00:00:00Z")
    p.capture(copy, "An older copy without the sentence.", when="2025-01-01T00:00:00Z")
    first = other if order.index(OTHER) < order.index(copy) else second
    named = OTHER if first is other else copy
    code, found = p.check(f"He said “commuting costs are a burden on rural households” [1]({ACT}).\n", monkeypatch)
    assert code == 1 and len(found) == 1
    assert f"it occurs in the capture of '{named}' (capture {first.sha256[:12]}\u2026): cite that source" \
        in found[0]


def test_the_search_of_other_sources_stops_at_its_budget(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget smaller than the captures read before the one holding the quotation, the
    search gives up: no source is named (the budget bounds the text one document reads)."""
    import citelint.links.claims as claims

    monkeypatch.setattr(claims, "ELSEWHERE_BUDGET_CHARS", len(NEWS_TEXT) // 2)
    code, found = project.check(f"He said “commuting costs are a burden on rural households” [1]({ACT}).\n",
                                monkeypatch)
    assert code == 1 and len(found) == 1 and "does not occur verbatim" in found[0]
    assert "it occurs in the capture of" not in found[0]


@pytest.mark.parametrize("markdown, words", [
    (f"“Employees are entitled … within 90 days” [1]({ACT}).", "quotation 'Employees are entitled"),
    (f"“within 30 days … Employees are entitled” [1]({ACT}).", "not in this order"),
    (f"“Employees are … not … within 30 days” [1]({ACT}).", "segment 'not' is too short to verify"),
    (f"“Employees are entitled [to the sum] within 30 days” [1]({ACT}).", "not in this order with at most 60"),
    (f"It says “employees are entitled to a refund of 0.43 EUR per kilometre” [1]({ACT}).", "letter case"),
])
def test_misquotations_are_cl205(project: Project, monkeypatch: pytest.MonkeyPatch, markdown: str,
                                 words: str) -> None:
    code, found = project.check(markdown + "\n", monkeypatch)
    assert code == 1 and len(found) == 1 and ": CL205 " in found[0], found
    assert words in found[0]


def test_only_grounded_citations_count(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # Uncaptured: CL201 alone, never also CL205 or CL206.
    code, found = project.check("It says “an invented sentence that nobody wrote down” in 1999 "
                                "[1](https://example.org/uncaptured).\n", monkeypatch)
    assert code == 1 and [f.split(": ")[1].split()[0] for f in found] == ["CL201"]


def test_quotation_link_text_is_cl204s_alone(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    href = ACT + "#:~:text=Employees%20are%20entitled"
    code, found = project.check(f"[“Employees are entitled to the moon and back”]({href}), and "
                                f"[99 more]({href}).\n", monkeypatch)
    assert code == 0 and found == []  # the directive text occurs; the link's own text is not CL205's or CL206's


def test_named_revision_is_the_one_checked(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    newer = project.capture(ACT, "Section 3 was repealed.", "2026-06-01T00:00:00Z")
    quote = "“Employees are entitled to a refund of 0.43 EUR per kilometre”"
    code, found = project.check(f'{quote} [1]({ACT} "capture:{project.act.sha256}").\n',  # type: ignore[attr-defined]
                                monkeypatch)
    assert (code, found) == (0, [])
    code, found = project.check(f"{quote} [1]({ACT}).\n", monkeypatch)
    assert code == 1 and newer.sha256[:12] in found[0] and ": CL205 " in found[0]
    code, found = project.check(f'{quote} [1]({ACT} "capture:{"0" * 64}").\n', monkeypatch)
    assert code == 1 and "which this source has no revision of" in found[0]
    old = project.act.sha256  # type: ignore[attr-defined]
    code, found = project.check(f'{quote} [the Act][Act  Ref].\n\n[act ref]: {ACT} "capture:{old}"\n', monkeypatch)
    assert (code, found) == (0, [])  # the reference definition's title, its label matched as CommonMark does
    code, found = project.check(f'{quote} <a href="{ACT}" title="capture:{old}">1</a>.\n', monkeypatch)
    assert (code, found) == (0, [])
    code, found = project.check(f'{quote} [1]({ACT} "capture:nope").\n', monkeypatch)
    assert code == 1 and "names no revision" in found[0]


def test_numbers_are_cl206_warnings(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    code, found = project.check("\n\n".join([
        f"Employees get 0.43 EUR per kilometre, paid within 30 days [1]({ACT}).",   # both occur
        f"The refund rises to 1.000 euros for 12.5% of commuters [1]({NEWS}).",    # 1.000 reads as 1,000
        f"Employees get 0.18 EUR per kilometre [1]({ACT}).",                       # line 5: not in the source
        f"The Act dates from 12 [1]({ACT}).",                                      # line 7: 12 is not in 2012
        f"See COVID-19 rules of 2026-07-01 in section [3]({ACT}).",                # out of scope, marker
    ]) + "\n", monkeypatch)
    assert code == 0
    assert found == [
        f"reports/a.md:5:15: CL206 number 0.18 does not occur in the capture of '{ACT}': check the figure "
        "against the source [number-not-in-source]",
        f"reports/a.md:7:20: CL206 number 12 does not occur in the capture of '{ACT}': check the figure "
        "against the source [number-not-in-source]",
    ]
    code, found = project.check(f"Employees get 0.18 EUR per kilometre [1]({ACT}).\n", monkeypatch, "--strict")
    assert code == 1


def test_rule_levels_and_quotes_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = f"The Act says “Employees are entitled to 0.18 EUR” within 31 days [1]({ACT}).\n"
    p = Project(tmp_path, rules={"CL205": "warning", "CL206": "error"})
    p.capture(ACT, ACT_TEXT)
    code, found = p.check(bad, monkeypatch)
    assert code == 1 and sorted(f.split(": ")[1].split()[0] for f in found) == ["CL205", "CL206"]
    p = Project(tmp_path, rules={"CL205": "warning"})
    code, found = p.check(bad, monkeypatch)
    assert code == 0 and [f.split(": ")[1].split()[0] for f in found] == ["CL205", "CL206"]
    p = Project(tmp_path, quotes={"enabled": False})
    code, found = p.check(bad, monkeypatch)
    assert code == 0 and [f.split(": ")[1].split()[0] for f in found] == ["CL206"]
    p = Project(tmp_path, quotes={"min_chars": 40}, rules={"CL206": "off"})
    assert p.check(bad, monkeypatch) == (0, [])  # 27 visible characters: not a quotation to check
    p = Project(tmp_path, quotes={"max_elision_chars": 10})
    code, found = p.check(f"“Employees are entitled … within 30 days” [1]({ACT}).\n", monkeypatch)
    assert code == 1 and "with at most 10 characters" in found[0]


@pytest.mark.parametrize("quotes, words", [
    ('{"min_chars": "20"}', "quotes.min_chars must be a whole number"),
    ('{"max_elision_chars": -1}', "quotes.max_elision_chars"),
    ('{"enable": true}', "unknown key 'quotes.enable'"),
])
def test_quotes_config_errors_name_file_line_and_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        quotes: str, words: str) -> None:
    (tmp_path / "citelint.yaml").write_text(f"sources: []\nlabels: {{}}\nquotes: {quotes}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert main(["check"], stdout=out, stderr=err) == 2
    assert "citelint.yaml:3:" in err.getvalue() and words in err.getvalue(), err.getvalue()


def test_injected_fault_in_the_bundled_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24's fault: an invented quotation and number beside a grounded link now fail."""
    where = tmp_path / "expertqa"
    shutil.copytree(REPO_ROOT / "examples" / "expertqa", where)
    report = where / "reports" / "q2-answer.md"
    text = report.read_text(encoding="utf-8")
    start = ("According to the Slovenian Employment Relationship Act, an employee in the Republic of Slovenia "
             "can request reimbursement of travel expenses for mileage if there is no adequate public "
             "transportation available [[1]]")
    assert start in text
    for replaced, rules in [
        ('The Act states that "employees are entitled to 0.18 EUR per kilometre in all cases" [[1]]', ["CL205"]),
        ("The Act states that employees are entitled to 0.18 EUR per kilometre in all cases [[1]]", ["CL206"]),
    ]:
        report.write_text(text.replace(start, replaced), encoding="utf-8")
        monkeypatch.chdir(where)
        out, err = io.StringIO(), io.StringIO()
        code = main(["check"], stdout=out, stderr=err)
        found = [ln for ln in out.getvalue().splitlines() if ": CL" in ln]
        assert [ln.split(": ")[1].split()[0] for ln in found] == rules, found
        assert found[0].startswith("reports/q2-answer.md:3:")
        assert code == (1 if rules == ["CL205"] else 0)


def test_show_find_prints_where_a_text_occurs_or_the_nearest_passage(project: Project,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)

    def show(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = main(["show", ACT, *args], stdout=out, stderr=err)
        return code, out.getvalue(), err.getvalue()

    code, out, _ = show("--find", "per kilometre for the use")  # a line break in the capture
    assert code == 0 and f"revision {project.act.sha256}" in out  # type: ignore[attr-defined]
    assert "  1:59: 'itled to a refund of 0.43 EUR per kilometre for the use of a personal car" in out
    code, out, _ = show("--find", "a refund of 0.18 EUR per kilometre")
    assert code == 1 and "not found: the first 14 characters of the text occur" in out
    assert "nearest: '... 3. Employees are entitled to a refund of 0.43 EUR per kilometre" in out
    code, _, err = show("--find", " \t")
    assert code == 2 and "visible character" in err
    code, _, err = show("--find", "refund", "--revision", "ffff")
    assert code == 1 and "no verified revision" in err


# ----------------------------------------------------------------- real text (../shared/corpus/expertqa)

_EVIDENCE = re.compile(r"^\[\d+\]\s*(https?://[^\s()]+)\s*\n\s*\n(.+)", re.S)
_PLAIN_SENTENCE = re.compile(r"[\"“”«»「」『』‘’\[\]*_`<>\\]|\.\.\.|…|https?:|www\.|\n")


def _expertqa_sources(limit: int) -> dict[str, str]:
    """Evidence passages the ExpertQA systems retrieved, by URL (the first of each, over 300 characters)."""
    sources: dict[str, str] = {}
    with corpus_path("expertqa", "rand_val.jsonl").open(encoding="utf-8") as f:
        for line in f:
            for answer in json.loads(line)["answers"].values():
                for claim in answer.get("claims") or []:
                    for evidence in claim.get("evidence") or []:
                        m = _EVIDENCE.match(evidence)
                        if m and len(m.group(2)) > 300 and m.group(1) not in sources and len(sources) < limit:
                            sources[m.group(1)] = m.group(2)
    return sources


def _sentences(text: str) -> list[str]:
    return [s for s in (s.strip() for s in re.split(r"(?<=[.!?])\s+", text))
            if 40 <= len(s) <= 220 and not _PLAIN_SENTENCE.search(s) and not re.match(r"[#+|>-]|\d+[.)]", s)]


def test_real_evidence_quoted_beside_its_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers quoting real evidence sentences beside their citation links: every genuine quotation
    (whole or elided in order) is accepted; every one-letter or one-digit change, every quotation
    pointed at another claim's source, every elision out of order is CL205."""
    sources = _expertqa_sources(60)
    urls = list(sources)
    p = Project(tmp_path, sources=urls)
    for url, text in sources.items():
        p.capture(url, text)
    genuine, changed, pointed, elided, disordered = [], [], [], [], []
    for i, url in enumerate(urls):
        found = _sentences(sources[url])
        if not found:
            continue
        s = found[0]
        genuine.append(f"As the source puts it, “{s}” [1]({url}).")
        digit = re.search(r"\d", s)
        if digit:
            at = digit.start()
            changed.append(f"It says “{s[:at]}{(int(s[at]) + 1) % 10}{s[at + 1:]}” [1]({url}).")
        words = s.split(" ")
        k = len(words) // 2
        words[k] = ("q" if words[k][:1] != "q" else "z") + words[k][1:]
        changed.append(f"It says “{' '.join(words)}” [1]({url}).")
        pointed.append(f"It says “{s}” [1]({urls[(i + 1) % len(urls)]}).")
        if len(found) >= 3:
            elided.append(f"It says “{found[0]} … {found[2]}” [1]({url}).")
            disordered.append(f"It says “{found[2]} … {found[0]}” [1]({url}).")
    assert len(genuine) >= 50 and len(elided) >= 20
    for lines, misses in ((genuine, 0), (elided, 0), (changed, len(changed)), (pointed, len(pointed)),
                          (disordered, len(disordered))):
        _code, found = p.check("\n\n".join(lines) + "\n", monkeypatch)
        cl205 = [f for f in found if ": CL205 " in f]
        assert len(cl205) == misses, cl205[:3]
        assert all(": CL205 " in f or ": CL206 " in f for f in found)
        if lines is pointed:
            assert all("it occurs in the capture of" in f for f in cl205)


def test_accepted_quotations_join_accepted_and_the_review_list(project: Project,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import jsonschema

    (project.root / "reports").mkdir(exist_ok=True)
    (project.root / "reports" / "a.md").write_text(
        f"The Act says “The employer shall pay [the worker] the refund within 30 days” [1]({ACT}).\n\n"
        f"It says “Employees are entitled to a refund of 0.45 EUR per kilometre” [1]({ACT}).\n", encoding="utf-8")
    monkeypatch.chdir(project.root)
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "--format", "json"], stdout=out, stderr=err) == 1
    doc = json.loads(out.getvalue())
    schema = json.loads((REPO_ROOT / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema)
    sentence = "The Act says “The employer shall pay [the worker] the refund within 30 days” 1."
    text = "The employer shall pay [the worker] the refund within 30 days"
    assert doc["accepted"] == [{
        "path": "reports/a.md", "line": 1, "column": 14, "kind": "quotation", "form": "prose",
        "sentence": sentence,
        "text": text, "source": ACT, "capture": project.act.sha256, "label": None,  # type: ignore[attr-defined]
        "insertions": ["[the worker]"],
        "fingerprint": quotation_fingerprint(sentence, ACT, project.act.sha256, text),  # type: ignore[attr-defined]
        "reviewed": None}]
    assert doc["counts"]["quotations"] == 1 and doc["counts"]["semanticReview"] == 1
    assert [f["rule"] for f in doc["findings"]] == ["CL205"]  # the misquotation is not accepted
    assert doc["semanticReview"][0]["rule"] == "CL901" and "[the worker]" in doc["semanticReview"][0]["message"]
    out = io.StringIO()
    main(["check", "--review"], stdout=out, stderr=io.StringIO())
    review = out.getvalue()
    assert "semantic review (CL901): 1 accepted citation;" in review
    fingerprint = quotation_fingerprint(sentence, ACT, project.act.sha256, text)  # type: ignore[attr-defined]
    assert (f"  quotation  reports/a.md:1  {fingerprint[:16]}\n"
            "      “The employer shall pay [the worker] the refund within 30 days”\n") in review
    assert "the insertion [the worker] is the author's, not the source's" in review
