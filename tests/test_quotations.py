"""Quotation links: URL text directives checked verbatim against captures (CL204).

Parsing follows the URL Fragment Text Directive spec (WICG
scroll-to-text-fragment, "Syntax" and "parse a text directive"); its own
examples are used. The end-to-end tests run the real CLI in a subprocess on
projects whose captures are written by citelint's own writer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import jsonschema
import pytest

from citelint.links.directive import (
    DirectiveError,
    TextDirective,
    directive_part,
    format_text_directive,
    parse_directives,
    parse_text_directive,
    strip_directive,
)
from citelint.links.quote import match_spans, title_revision
from citelint.store.captures import CaptureRecord, make_record
from citelint.store.record import Extractor
from citelint.store.writer import write_capture

REPO_ROOT = Path(__file__).resolve().parents[1]
DOC = "https://example.org/doc.txt"
SPEC_TEXT = "This is an example text fragment. It is followed by more text, and this is the end."


# ----------------------------------------------------------------- parsing (spec examples)

@pytest.mark.parametrize("value, expected", [
    ("an%20example%20text%20fragment", TextDirective("an example text fragment")),
    ("an%20example,text%20fragment", TextDirective("an example", end="text fragment")),
    ("this%20is-,an%20example,-text%20fragment",
     TextDirective("an example", prefix="this is", suffix="text fragment")),
    ("this%20is-,an,text,-fragment", TextDirective("an", end="text", prefix="this is", suffix="fragment")),
    ("a%2Cb%2Dc", TextDirective("a,b-c")),  # percent-encoded comma and dash belong to the term
    ("caf%C3%A9%20%26%20cr%C3%A8me", TextDirective("café & crème")),
])
def test_spec_examples_parse(value: str, expected: TextDirective) -> None:
    d = parse_text_directive(value)
    assert (d.start, d.end, d.prefix, d.suffix) == (expected.start, expected.end, expected.prefix, expected.suffix)
    assert d.written == value


@pytest.mark.parametrize("value", [
    "", "a,,b", ",a", "a,", "a,b,c,d,e", "a-", "-b", "a-,-b", "a-,b,c,-d,e", "%FF", "ok,%C3",
])
def test_malformed_directives_raise(value: str) -> None:
    with pytest.raises(DirectiveError):
        parse_text_directive(value)


def test_several_directives_and_unknown_ones() -> None:
    found = parse_directives("text=one&note=ignored&text=two,three")
    assert [(d.start, d.end) for d in found] == [("one", None), ("two", "three")]
    with pytest.raises(DirectiveError):
        parse_directives("note=only")


def test_directive_part_and_strip() -> None:
    assert directive_part("https://x.org/p#:~:text=a") == "text=a"
    assert directive_part("https://x.org/p#frag:~:text=a") == "text=a"
    assert directive_part("https://x.org/p:~:text=a") is None  # not in the fragment
    assert strip_directive("https://x.org/p#:~:text=a") == "https://x.org/p"
    assert strip_directive("https://x.org/p#frag:~:text=a") == "https://x.org/p#frag"


@pytest.mark.parametrize("start, end, prefix, suffix", [
    ("Grüße aus Köln", None, None, None),
    ("a, b, and c", "x-y", None, None),
    ("one & two = three", None, "p - q", "r, s"),
    ("(parenthesised) <angled> back\\slash", "end (here)", None, None),
    ("日本語のテキスト、句読点。", None, "前", "後"),
    ("  spaced  out  ", None, None, None),
    ("100% #1 ?q=v", None, None, None),
])
def test_format_parse_round_trip(start: str, end: str | None, prefix: str | None, suffix: str | None) -> None:
    fragment = format_text_directive(start, end, prefix=prefix, suffix=suffix)
    assert fragment.startswith(":~:text=")
    for bad in " ()<>\\":
        assert bad not in fragment
    (d,) = parse_directives(directive_part("https://x.org/p#" + fragment) or "")
    assert (d.start, d.end, d.prefix, d.suffix) == (start, end, prefix, suffix)


def test_format_refuses_empty_terms() -> None:
    with pytest.raises(ValueError):
        format_text_directive("")
    with pytest.raises(ValueError):
        format_text_directive("a", end="")


# ----------------------------------------------------------------- matching

def spans(text: str, value: str) -> list[tuple[int, int]]:
    return match_spans(text, parse_text_directive(value))


def test_spec_examples_match_verbatim() -> None:
    assert spans(SPEC_TEXT, "an%20example%20text%20fragment") == [(8, 32)]
    assert spans(SPEC_TEXT, "an%20example,text%20fragment") == [(8, 32)]
    assert spans(SPEC_TEXT, "This%20is-,an%20example,-text%20fragment") == [(8, 18)]
    # no case folding, unlike a browser
    assert spans(SPEC_TEXT, "this%20is-,an%20example,-text%20fragment") == []
    assert spans(SPEC_TEXT, "AN%20EXAMPLE") == []


def test_prefix_and_suffix_allow_only_whitespace_between() -> None:
    text = "alpha  beta\n gamma"
    assert spans(text, "alpha-,beta") == [(7, 11)]
    assert spans(text, "beta,-gamma") == [(7, 11)]
    assert spans(text, "alph-,beta") == []  # the prefix must end right before the whitespace
    assert spans("alpha x beta", "alpha-,beta") == []


def test_end_must_follow_start() -> None:
    text = "second comes after first, and then second again"
    assert spans(text, "first,second") == [(19, 41)]
    assert spans("end before start", "start,end") == []
    # with a suffix, a later end whose suffix follows is taken
    assert spans("a x b y x c", "a,x,-c") == [(0, 9)]


def test_ambiguity_counts_overlapping_and_respects_prefix() -> None:
    assert len(spans("aaa", "aa")) == 2
    text = "the cat sat. a cat ran."
    assert len(spans(text, "cat")) == 2
    assert spans(text, "the-,cat") == [(4, 7)]


def test_title_revision() -> None:
    assert title_revision(None) is None
    assert title_revision("some title") is None
    assert title_revision("capture:" + "a" * 64) == "a" * 64
    for bad in ("capture:", "capture:xyz", "capture:" + "A" * 64, "capture:" + "a" * 63, "capture:" + "a" * 65):
        with pytest.raises(DirectiveError):
            title_revision(bad)


# ----------------------------------------------------------------- the CLI, end to end

def q(start: str, end: str | None = None, *, prefix: str | None = None, suffix: str | None = None,
      source: str = DOC) -> str:
    return source + "#" + format_text_directive(start, end, prefix=prefix, suffix=suffix)


class Project:
    """A real project on disk: citelint.yaml, captures written by citelint's writer, one Markdown report."""

    def __init__(self, root: Path, **config: object) -> None:
        self.root = root
        data = {"sources": [DOC, "https://example.org/batch.pdf"], "labels": {}, "markdown": ["reports/*.md"]}
        data.update(config)
        (root / "citelint.yaml").write_text(json.dumps(data), encoding="utf-8")

    def capture(self, text: str, when: str, source: str = DOC, batch: str | None = None) -> CaptureRecord:
        extractor = Extractor("pypdf", "6.0.0", {}) if batch else None
        record = make_record(source, text, retrieved_at=when, extractor=extractor,
                             raw_sha256="f" * 64 if batch else None, batch=batch)
        write_capture(self.root / "captures", record)
        return record

    def report(self, markdown: str) -> Path:
        path = self.root / "reports" / "a.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(markdown, encoding="utf-8")
        return path

    def check(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR")}
        return subprocess.run([sys.executable, "-m", "citelint", "check", *args], cwd=self.root, env=env,
                              capture_output=True, text=True, timeout=120)


def findings(run: subprocess.CompletedProcess[str], rule: str | None = None) -> list[str]:
    return [ln for ln in run.stdout.splitlines() if ": CL" in ln and (rule is None or f": {rule} " in ln)]


def at_line(run: subprocess.CompletedProcess[str], line: int) -> list[str]:
    return [ln for ln in findings(run) if ln.startswith(f"reports/a.md:{line}:")]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.old = p.capture("Old wording: the grass was green in the spring of last year.", "2026-01-01T00:00:00Z")
    p.new = p.capture(SPEC_TEXT + " Revenue rose 12% to $4.1 million, a dash-y, comma, text.",
                      "2026-02-01T00:00:00Z")
    return p


def test_passing_quotations_exit_zero(project: Project) -> None:
    new = project.new.sha256
    project.report("\n\n".join([
        f'[a]({q("an example text fragment. It is followed")} "capture:{new}")',   # line 1: named revision
        f"[b]({q('Revenue rose 12% to $4.1 million, a dash-y, comma, text.')})",   # line 3: newest, %2C %2D %25
        f'[c][ref]\n\n[ref]: {q("It is followed by more text", "this is the end.")} "capture:{new}"',
        f"[d]({q('more text, and this is', prefix='followed by', suffix='the end')})",
        f'<a href="{q("an example text fragment. It is")}" title="capture:{new}">e</a>',
    ]) + "\n")
    run = project.check()
    assert run.returncode == 0, run.stdout + run.stderr
    assert findings(run) == []


def test_spec_examples_end_to_end(project: Project) -> None:
    project.report("\n\n".join(f"[x]({DOC}#:~:text={v})" for v in (
        "an%20example%20text%20fragment", "an%20example,text%20fragment",
        "This%20is-,an%20example,-text%20fragment")) + "\n")
    run = project.check()
    assert run.returncode == 0, run.stdout
    assert findings(run, "CL204") == []
    # the two short start terms are CL105 warnings, the 24-character one is not
    assert [ln.split(":")[1] for ln in findings(run, "CL105")] == ["3", "5"]
    assert "only the two ends and their order are verified" in at_line(run, 3)[0]


def test_misses_are_cl204_with_near_miss_hints(project: Project) -> None:
    project.report("\n\n".join([
        f"[a]({q('an example  text fragment')})",               # 1: doubled space
        f"[b]({q('AN EXAMPLE TEXT FRAGMENT. IT IS')})",           # 3: case
        f"[c]({q('an example text fragment', prefix='That is')})",  # 5: wrong prefix
        f"[d]({q('It is followed by more text', 'This is an')})",  # 7: end only before start
        f"[e]({q('an example text fragment. It is', suffix='preceded')})",  # 9: wrong suffix
    ]) + "\n")
    run = project.check()
    assert run.returncode == 1
    for line in (1, 3, 5, 7, 9):
        (finding,) = at_line(run, line)
        assert ": CL204 quotation not found in capture " + project.new.sha256[:12] in finding
        assert "--fix leaves this link alone" in finding
    assert "near miss (whitespace" in at_line(run, 1)[0]
    assert "browsers fold case, citelint does not" in at_line(run, 3)[0]
    assert "never right after the prefix 'That is'" in at_line(run, 5)[0]
    assert "occurs only before the start term" in at_line(run, 7)[0]
    assert "only the two ends and their order are verified" in at_line(run, 7)[0]
    assert "the suffix 'preceded' does not follow" in at_line(run, 9)[0]


@pytest.mark.parametrize("start, end, says", [
    # It said "occurs only before the start term" of an end term at the same place as the start term.
    ("the end", "the end", "the end term 'the end' occurs only where the start term is (overlapping it), never "
                           "after it; it must follow the start term"),
    ("example text fragment", "fragment", "the end term 'fragment' occurs only where the start term is "
                                          "(overlapping it), never after"),
    ("this is the end", "is", "the end term 'is' occurs only before the start term or where it is (overlapping "
                              "it), never after it"),
    ("more text", "This is", "the end term 'This is' occurs only before the start term;"),
])
def test_an_end_term_miss_says_where_the_end_term_occurs(project: Project, start: str, end: str, says: str) -> None:
    project.report(f"[a]({DOC}#:~:text={quote(start)},{quote(end)})\n")
    (finding,) = at_line(project.check(), 1)
    assert ": CL204 " in finding and says in finding, finding


@pytest.mark.parametrize("link, term", [
    (q("an example text fragment", prefix="Zyxwvut qponm"), "prefix"),
    (q("an example text fragment", suffix="Zyxwvut qponm"), "suffix"),
    (q("It is followed by more text", "Zyxwvut qponm"), "end term"),
    (q("It is followed by more text", "and this is the end.", suffix="Zyxwvut qponm"), "suffix"),
    (q("an example text fragment", prefix="This is an exomple"), "prefix"),   # its first characters occur
    (q("an example text fragment", suffix="It is followed by nore"), "suffix"),
    (q("an example text fragment", prefix="THIS IS"), "prefix"),  # other letter case
])
def test_a_term_miss_hint_speaks_of_that_term_only(project: Project, link: str, term: str) -> None:
    """Issue 23, item 8: when the start term occurs, a hint about the prefix, end term or suffix
    that failed never says that "no part of the snippet's start occurs"."""
    project.report(f"[a]({link})\n")
    run = project.check()
    (finding,) = at_line(run, 1)
    assert ": CL204 " in finding and "snippet" not in finding, finding
    hint = finding.split(": ", 2)[2]
    assert f"the {term}" in hint
    if "Zyxwvut" in link:
        assert f"no part of the {term}'s start occurs in the capture" in hint
    elif "THIS%20IS" in link:
        assert "the prefix occurs with other letter case" in hint
    else:
        assert f"characters of the {term} occur in the capture, then {term} character" in hint


def test_a_suffix_that_follows_another_occurrence_of_the_start_term_is_named_so(project: Project) -> None:
    """The suffix follows "text" in "more text, and", but not the "text" right after the prefix."""
    project.report(f"[a]({q('text', prefix='an example', suffix=', and this')})\n")
    (finding,) = at_line(project.check(), 1)
    assert "the suffix ', and this' does not follow the start term right after the prefix" in finding
    assert "snippet" not in finding


def test_match_only_in_older_revision_is_rejected_and_named(project: Project) -> None:
    project.report(f"[a]({q('the grass was green in the spring')})\n")
    run = project.check("--format", "json")
    assert run.returncode == 1
    out = json.loads(run.stdout)
    (finding,) = out["findings"]
    assert finding["rule"] == "CL204"
    assert finding["capture"] == project.new.sha256  # the newest revision was used
    assert f'capture:{project.old.sha256}' in finding["message"]
    assert f"it does occur in the revision of {project.old.retrieved_at}" in finding["message"]
    assert f"not found in capture {project.new.sha256} " in finding["message"]  # whole, beside the other
    schema = json.loads((REPO_ROOT / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(out, schema)
    # naming the old revision makes it pass
    project.report(f'[a]({q("the grass was green in the spring")} "capture:{project.old.sha256}")\n')
    assert project.check().returncode == 0


def test_named_revision_missing_or_malformed_title(project: Project) -> None:
    good = q("an example text fragment. It is")
    project.report("\n\n".join([
        f'[a]({good} "capture:{"0" * 64}")',
        f'[b]({good} "capture:nothex")',
        f"[c]({DOC}#:~:text=a,b,c,d,e)",
        f"[d]({DOC}#:~:text=prefix-)",
        f"[e]({DOC}#:~:text=%FF)",
        f"[f]({DOC}#:~:text=a,,b)",
    ]) + "\n")
    run = project.check("--format", "json")
    by_line = {f["line"]: f for f in json.loads(run.stdout)["findings"]}
    assert by_line[1]["rule"] == "CL204" and "has no such revision" in by_line[1]["message"]
    assert "no other revision is used in its place" in by_line[1]["message"]
    assert by_line[1]["capture"] == "0" * 64
    for line in (3, 5, 7, 9, 11):
        assert by_line[line]["rule"] == "CL202", by_line[line]
        assert "capture" not in by_line[line]
    assert "names no revision" in by_line[3]["message"]
    assert "percent-encoded UTF-8" in by_line[9]["message"]


def test_corrupt_named_revision_is_cl204(project: Project) -> None:
    (path,) = (project.root / "captures").rglob(f"{project.old.sha256}.json")
    path.write_text(path.read_text(encoding="utf-8").replace("grass", "GRASS"), encoding="utf-8")
    project.report(f'[a]({q("the grass was green in the spring")} "capture:{project.old.sha256}")\n')
    run = project.check()
    (finding,) = findings(run)
    assert ": CL204 " in finding and "fails verification" in finding


def test_allowed_uncaptured_and_fix(project: Project) -> None:
    (project.root / "citelint.yaml").write_text(json.dumps({
        "sources": [DOC], "labels": {}, "markdown": ["reports/*.md"],
        "links": {"allow": ["https://allowed.example/*"]}}), encoding="utf-8")
    markdown = "\n\n".join([
        f"[a]({q('quoted text here', source='https://allowed.example/page')})",  # 1: allowed, no capture
        f"[b]({q('quoted text here', source='https://uncaptured.example/p')})",  # 3: ungrounded
        f"[c]({q('not in the capture at all, sorry')})",                         # 5: CL204
        f"[d]({DOC}#:~:text=a,b,c,d,e)",                                          # 7: malformed, grounded
        f"[e]({q('Revenue rose 12% to $4.1 million')})",                          # 9: fine
    ]) + "\n"
    path = project.report(markdown)
    run = project.check("--fix")
    assert run.returncode == 1
    assert ": CL204 " in at_line(run, 1)[0] and "nothing to verify" in at_line(run, 1)[0]
    assert "fixed CL201 removed link to https://uncaptured.example/p" in run.stdout
    assert ": CL204 " in at_line(run, 5)[0]
    assert ": CL202 " in at_line(run, 7)[0]
    after = path.read_text(encoding="utf-8")
    # only the ungrounded link was flattened; every grounded quotation is byte-identical
    assert after == markdown.replace(f"[b]({q('quoted text here', source='https://uncaptured.example/p')})", "b")
    again = project.check("--fix")
    assert path.read_text(encoding="utf-8") == after
    assert "fixed" not in again.stdout


def test_invisible_and_ambiguous_terms(project: Project) -> None:
    project.report("\n\n".join([
        f"[a]({DOC}#:~:text=%E2%80%8B%C2%AD)",                      # 1: zero-width space + soft hyphen
        f"[b]({q('is', prefix='This')})",                           # 3: unique with prefix, but short
        f"[c]({q('text')})",                                        # 5: short
        f"[d]({q(' is ')})",                                        # 7: short
    ]) + "\n")
    run = project.check()
    assert at_line(run, 1)[0].endswith(
        ": CL108 the quoted start term has no visible character (only whitespace, zero-width or format "
        "characters); quote readable text from the capture [snippet-invisible]")
    assert run.returncode == 1
    assert all(": CL105 " in at_line(run, n)[0] for n in (3, 5, 7))
    assert at_line(run, 5)[0].endswith(
        f": CL105 the quoted start term 'text' is only 4 characters (fewer than 20); quote enough to identify "
        f"the passage in capture {project.new.sha256[:12]}… [snippet-ambiguous]")
    project.report(f"[a]({q('text fragment. It is followed', prefix='example')})\n"
                   f"\n[b]({q('is', 'the end.')})\n")
    run = project.check()
    assert [ln.split(":")[1] for ln in findings(run)] == ["3"]  # only the short 'is' of the range
    assert ": CL105 " in findings(run)[0]
    # a long start term that occurs twice is ambiguous; a prefix makes it unique
    project.new = project.capture("Dividend held at 5 cents per share. Later: Dividend held at 5 cents per share.",
                                  "2026-03-01T00:00:00Z")
    project.report(f"[a]({q('Dividend held at 5 cents per share.')})\n\n"
                   f"[b]({q('Dividend held at 5 cents per share.', prefix='Later:')})\n")
    run = project.check()
    (ambiguous,) = findings(run, "CL105")
    assert ambiguous.startswith("reports/a.md:1:") and ambiguous.endswith(
        f": CL105 the quotation 'Dividend held at 5 cents per share.' matches 2 passages of capture "
        f"{project.new.sha256[:12]}…; add a prefix (`prefix-,`), a suffix (`,-suffix`) or more text so it "
        "identifies one [snippet-ambiguous]")


def test_newest_revision_includes_batch_siblings(tmp_path: Path) -> None:
    p = Project(tmp_path)
    src = "https://example.org/batch.pdf"
    batch = "b" * 64
    first = p.capture("Chunk one: the first part of the document, page one.", "2026-05-01T00:00:00Z", src, batch)
    second = p.capture("Chunk two: the second part of the document, page two.", "2026-05-01T00:00:00Z", src, batch)
    p.report(f"[a]({q('the first part of the document', source=src)})\n\n"
             f"[b]({q('the second part of the document', source=src)})\n\n"
             f"[c]({q('page two', source=src)})\n\n"
             f"[d]({q('a third part nobody captured', source=src)})\n")
    run = p.check("--format", "json")
    out = json.loads(run.stdout)
    by_line = {f["line"]: f for f in out["findings"]}
    assert set(by_line) == {5, 7}
    assert by_line[5]["rule"] == "CL105" and by_line[5]["capture"] == second.sha256  # the sibling used
    assert by_line[7]["rule"] == "CL204" and "1 batch sibling" in by_line[7]["message"]
    assert by_line[7]["capture"] == min(first.sha256, second.sha256)


def test_revisions_tied_for_newest_must_each_hold_an_untitled_quotation(tmp_path: Path) -> None:
    """Issue 23, item 4: two captures of one page in the same second (its markup as text, and its
    extracted text). An untitled quotation of the markup used to pass against the raw one."""
    page = tmp_path / "page.html"
    page.write_text('<html><head><meta name="description" content="Quarterly results"></head>'
                    "<body><p>Revenue rose 12% to $4.1 million in the third quarter.</p></body></html>\n",
                    encoding="utf-8")
    src = "https://example.org/q3.html"
    p = Project(tmp_path, sources=[src], capture={"content_types": ["text/plain", "text/html"]})
    shas = []
    for content_type in ("text/plain", "text/html"):
        done = subprocess.run([sys.executable, "-m", "citelint", "capture", "--source", src, "--from-file",
                               str(page), "--content-type", content_type, "--retrieved-at", "2026-07-01T00:00:00Z"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        shas.append(done.stdout.split(" revision ")[1].split()[0])
    raw, extracted = shas
    markup = q('<meta name="description"', source=src)
    p.report(f"[a]({markup})\n\n"
             f"[b]({q('Revenue rose 12% to $4.1 million', source=src)})\n\n"
             f'[c]({markup} "capture:{raw}")\n')
    run = p.check()
    assert run.returncode == 1
    (miss,) = findings(run)
    assert miss.startswith("reports/a.md:1:") and ": CL204 " in miss
    assert f"capture:{raw}" in miss and f"capture:{extracted}" in miss  # both named, whole
    assert "2 revisions share its newest retrievedAt (2026-07-01T00:00:00Z)" in miss
    assert "must occur in each of them" in miss and 'give the link the title "capture:<sha256>"' in miss
    assert f"in capture {extracted}: the start term" in miss and f"it occurs in capture:{raw} only" in miss

    # A strictly newer revision ends the tie: it alone is the newest.
    newer = p.capture("Revenue rose 12% to $4.1 million in the third quarter, as revised.", "2026-07-01T00:00:01Z", src)
    run = p.check("--format", "json")
    by_line = {f["line"]: f for f in json.loads(run.stdout)["findings"]}
    assert set(by_line) == {1} and "(the newest revision of this source)" in by_line[1]["message"]
    assert by_line[1]["capture"] == newer.sha256


def test_a_batch_tied_with_another_revision_is_one_of_the_tied(tmp_path: Path) -> None:
    """Siblings of one batch are one candidate (any may hold the passage); a revision of the same
    date outside the batch is another, and the quotation must occur in both."""
    p = Project(tmp_path)
    src = "https://example.org/batch.pdf"
    when = "2026-05-01T00:00:00Z"
    p.capture("Chunk one: the first part of the document, page one.", when, src, "b" * 64)
    p.capture("Chunk two: the second part of the document, page two.", when, src, "b" * 64)
    alone = p.capture("Fetched alone: the first part of the document, page one.", when, src)
    p.report(f"[a]({q('the first part of the document', source=src)})\n\n"
             f"[b]({q('the second part of the document', source=src)})\n")
    run = p.check("--format", "json")
    by_line = {f["line"]: f for f in json.loads(run.stdout)["findings"]}
    assert set(by_line) == {3}, by_line
    message = by_line[3]["message"]
    assert by_line[3]["rule"] == "CL204" and by_line[3]["capture"] == alone.sha256
    assert "2 revisions share its newest retrievedAt" in message and "(batch of 2)" in message


def test_quotation_severities_follow_the_catalog(project: Project) -> None:
    (project.root / "citelint.yaml").write_text(json.dumps({
        "sources": [DOC], "labels": {}, "markdown": ["reports/*.md"], "rules": {"CL204": "warning"}}),
        encoding="utf-8")
    project.report(f"[a]({q('text')})\n")
    run = project.check()
    assert run.returncode == 2 and "CL204" in run.stderr  # CL204 is locked: it cannot be lowered


def test_matching_is_bounded_on_hostile_text() -> None:
    text = "a" * 2_000_000
    assert match_spans(text, parse_text_directive("b-,a")) == []
    assert match_spans(text, parse_text_directive("a,-b")) == []
    assert len(match_spans(text, parse_text_directive("a-,a"))) == 1000  # counting stops at COUNT_LIMIT
    assert match_spans("q" + " " * 100_000 + "x", parse_text_directive("q-,x")) == [(100_001, 100_002)]


def test_text_about_the_syntax_is_no_quotation(project: Project) -> None:
    """Regression: a report mentioning ``:~:`` outside any link (or in an image) crashed the check."""
    project.report("The syntax is `#:~:text=`.\n\nSee :~: here [a](" + DOC + ").\n\n"
                   "![img](" + DOC + "#:~:text=x)\n")
    run = project.check()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "internal error" not in run.stderr


def test_raw_html_spelling_the_directive_with_references_is_checked(project: Project) -> None:
    """Regression: ``&#58;~&#58;`` in a raw ``<a href>`` is ``:~:`` to a browser; the
    quotation was counted grounded and never verified."""
    for spelled in ("&#58;~&#58;", "&colon;~&colon;", "&#x3a;&#126;&#x3A;"):
        project.report(f'<a href="{DOC}#{spelled}text=Totally%20fabricated%20quotation%20here">x</a>\n')
        run = project.check()
        assert run.returncode == 1, spelled
        [finding] = findings(run, "CL204")
        assert "does not occur" in finding
    project.report(f'<a href="{DOC}#&#58;~&#58;text=an%20example%20text%20fragment">x</a>\n')
    assert project.check().returncode == 0


def test_ignored_query_parameters_do_not_break_quotations(tmp_path: Path) -> None:
    """Regression: with links.ignore_query_params, a quotation of URL?utm_source=x was CL204
    "allowed by links.allow but has no capture"."""
    p = Project(tmp_path, links={"ignore_query_params": ["utm_source"]})
    record = p.capture(SPEC_TEXT, "2026-02-01T00:00:00Z")
    base = DOC + "?utm_source=openai"
    p.report(f'[a]({q("an example text fragment", source=base)} "capture:{record.sha256}")\n\n'
             f'[b]({q("a fabricated passage", source=base)})\n')
    run = p.check()
    assert [ln.split(": ")[0] for ln in findings(run)] == ["reports/a.md:3:5"], run.stdout
    assert "does not occur" in findings(run, "CL204")[0]


def test_found_quotation_links_join_accepted_and_the_review_list(project: Project) -> None:
    """A quotation link whose text CL204 found is an accepted citation (kind quotation, form
    link) with its sentence and the passage of the capture it names, and is listed for
    semantic review; one that is not found, or found in an older revision only, is neither."""
    new = project.new.sha256
    project.report(
        f"Growth was strong. The filing says revenue [rose]({q('Revenue rose 12%', 'million')}) that year. "
        "Then it stopped.\n\n"
        f"A [wrong one]({q('Revenue fell 12% to $4.1 million')}) is not accepted.\n\n"
        f"- [old]({q('the grass was green')}) only in the older revision\n"
        f"- [two]({q('an example text fragment')}&text=more%20text \"capture:{new}\")\n")
    run = project.check("--format", "json")
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, json.loads((REPO_ROOT / "schemas" / "output.schema.json").read_text(encoding="utf-8")))
    assert sorted(f["rule"] for f in doc["findings"] if f["severity"] == "error") == ["CL204", "CL204"]
    assert [(a["line"], a["form"], a["sentence"], a["text"], a["capture"], a["label"]) for a in doc["accepted"]] == [
        (1, "link", "The filing says revenue rose that year.", "Revenue rose 12% to $4.1 million", new, None),
        (6, "link", "two", "an example text fragment … more text", new, None)]
    assert doc["counts"]["quotations"] == 2
    assert [(n["line"], n["rule"]) for n in doc["semanticReview"]] == [(1, "CL901"), (6, "CL901")]
    assert "quotation link's passage 'Revenue rose 12% to $4.1 million'" in doc["semanticReview"][0]["message"]
    review = project.check("--review")
    assert "quotation link  reports/a.md:1" in review.stdout
    assert "in: The filing says revenue rose that year." in review.stdout
