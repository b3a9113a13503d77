"""Markdown step summary (``--summary-file``), as GitHub renders ``$GITHUB_STEP_SUMMARY``.

Shape, for a reviewer who reads it in a pull request's checks tab:

1. a one-line verdict heading, then the counts (both kept whatever is cut);
2. the findings grouped by file, one list item per finding (a table would
   push the message off-screen behind a long path written as a code span),
   each location a link to the line at the commit checked when the run
   knows the repository (:func:`blob_url`);
   A CL104, CL204 or CL205 finding whose miss was explained shows the cited
   text over the capture's at the first difference, the differing character
   marked and named (:func:`_difference_block`);
3. the semantic-review list inside ``<details>``: only the citations nobody
   has reviewed (with ``--base``, only those the change added:
   ``CheckResult.base_fingerprints``), per citation its label and
   unit/period hints (or, for a quotation, its sentence), the excerpt in
   bold in context, and the ``citelint review --approve`` line to run; then,
   collapsed, the reviewed citations with their tier in words (reviewed:
   supports / does not support, by whom, when);
4. a hard cap (:data:`SUMMARY_MAX_BYTES`, under GitHub's 1 MiB per step):
   entries that do not fit are left out, and a note after the counts says
   how many and where the full list is.

Every untrusted string (paths, messages, labels, snippets, sources) goes
through :func:`citelint.escape.markdown_cell`, so nothing in it renders as
markup or a link, and control and bidi characters show as ``\\uXXXX``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from citelint.escape import code_span, html_text, markdown_cell, terminal
from citelint.model import (
    RULES,
    SEVERITY_ORDER,
    AcceptedFact,
    AcceptedQuotation,
    CheckResult,
    Difference,
    Finding,
    Review,
)
from citelint.output import RenderOptions, summary_line

#: GitHub refuses a step summary over 1 MiB (1,048,576 bytes) and shows an
#: error instead; this leaves room for the few bytes another step may append.
SUMMARY_MAX_BYTES = 1_000_000
#: Bytes kept back for the cut note and closing tags once the body is full.
_TAIL_BYTES = 2_000
#: Longest message and snippet shown (code points); longer ones are cut with a count.
MESSAGE_MAX = 1_500
SNIPPET_MAX = 400
#: Context words are taken from at most this many code points on each side.
CONTEXT_MAX = 60

_SERVER = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def blob_url(env: Mapping[str, str], cwd: Path, top: Path | None) -> str:
    """Prefix of a link to a file of the commit checked: ``{server}/{repo}/blob/{sha}/{dir}``.

    Args:
        env: the environment; GitHub Actions sets ``GITHUB_SERVER_URL``,
            ``GITHUB_REPOSITORY`` and ``GITHUB_SHA`` (docs: "Variables
            reference", default environment variables).
        cwd: the working directory, which finding paths are relative to.
        top: the top of the git work tree holding ``cwd`` (None outside git:
            then the paths are taken as relative to the repository's root).
    Returns:
        The prefix ending in ``/`` (a finding's percent-encoded path is
        appended), or ``""`` when a variable is missing or malformed, or
        ``cwd`` lies outside ``top``: then the summary links nothing.
    """
    server, repo, sha = (env.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"))
    if not (_SERVER.fullmatch(server) and _REPOSITORY.fullmatch(repo) and _SHA.fullmatch(sha)):
        return ""
    prefix = ""
    if top is not None:
        try:
            rel = cwd.resolve().relative_to(top.resolve()).as_posix()
        except ValueError:
            return ""
        prefix = "" if rel == "." else quote(rel, errors="surrogateescape") + "/"
    return f"{server}/{repo}/blob/{sha}/{prefix}"


def _link(options: RenderOptions, path: str, line: int, text: str) -> str:
    """``text`` (already Markdown) as a link to ``path`` line ``line`` at the commit, when known."""
    parts = path.split("/")
    if not options.blob_url or path.startswith("/") or ".." in parts or "." in parts:
        return text
    # quote() leaves only unreserved characters and "/", so the URL cannot end
    # the Markdown link early or carry a second one.
    return f"[{text}]({options.blob_url}{quote(path, errors='surrogateescape')}#L{line})"


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` code points, saying how much was left out."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _plural(n: int, word: str, many: str = "") -> str:
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def verdict(result: CheckResult, options: RenderOptions) -> str:
    """The heading's one-line verdict, e.g. ``failed: 6 errors`` (words, not
    symbols: a summary is also read where no emoji font is installed)."""
    errors, warnings = result.count("error"), result.count("warning")
    if errors:
        tail = f", {_plural(warnings, 'warning')}" if warnings else ""
        return f"failed: {_plural(errors, 'error')}{tail}"
    if warnings and options.strict:
        return f"failed: {_plural(warnings, 'warning')} (--strict)"
    if result.files == 0:
        return "nothing checked: no file matched the config's globs"
    if warnings:
        return f"passed with {_plural(warnings, 'warning')}"
    return "passed"


def _finding_item(f: Finding, options: RenderOptions) -> str:
    rule = RULES.get(f.rule)
    name = f"[{f.rule}]({rule.help_uri} \"{rule.name}\")" if rule else markdown_cell(f.rule)
    where = _link(options, f.path, f.line, f"line {f.line}, col {f.col}")
    item = f"- **{f.severity}** {name} at {where}: {markdown_cell(_cut(f.message, MESSAGE_MAX))}\n"
    return item + (_difference_block(f.difference) if f.difference is not None else "")


def _pre(text: str) -> str:
    """Untrusted text as the inside of a ``<pre>`` (raw HTML, where Markdown does not apply):
    line breaks, tabs, controls and bidi characters as visible escapes, then HTML-escaped;
    ``:`` as a character reference too, so no workflow command (``::error::``) stands in
    the file, whoever reads it."""
    return html_text(terminal(text)).replace(":", "&#58;")


def _marked(c: str) -> str:
    """The differing character, in bold; one a reader could not see (a space, a no-break or
    zero-width character...) or nothing at all (the text ends) is named in angle brackets."""
    from citelint.escape import is_invisible_char

    if not c:
        return "<b>⟨end⟩</b>"
    if c.isspace() or is_invisible_char(c) or not c.isprintable():
        return f"<b>⟨U+{ord(c):04X}⟩</b>"
    return f"<b>{_pre(c)}</b>"


def _difference_block(d: Difference) -> str:
    """Both texts where an excerpt and its capture part, one above the other, the differing
    character marked (:func:`_marked`) and named in words under them.

    The two lines share ``before`` exactly, so in the monospaced ``<pre>`` the
    differing characters stand in one column whatever the script.
    """
    from citelint.excerpts import DIFFERENCE_AFTER, DIFFERENCE_BEFORE, char_name

    def after(text: str, limit: int = DIFFERENCE_AFTER - 1) -> str:
        return _pre(text[:limit]) + ("…" if len(text) > limit else "")

    if not d.aligned:
        other = (f"capture: {_pre(d.captured)}   (the nearest passage)" if d.captured else
                 "capture: (no passage of this capture starts or ends like the cited text)")
        return f"  <pre>\n  cited:   {after(d.cited, DIFFERENCE_BEFORE + DIFFERENCE_AFTER)}\n  {other}\n  </pre>\n"
    before = ("…" if len(d.before) > DIFFERENCE_BEFORE else "") + _pre(d.before[-DIFFERENCE_BEFORE:])
    a, b = d.cited[:1], d.captured[:1]
    rows = (f"  <pre>\n  cited:   {before}{_marked(a)}{after(d.cited[1:])}\n"
            f"  capture: {before}{_marked(b)}{after(d.captured[1:])}\n  </pre>\n")
    have = char_name(a) if a else "its end"
    want = char_name(b) if b else "the end of its text"
    return rows + f"  The cited text has **{markdown_cell(have)}** where the capture has **{markdown_cell(want)}**.\n"


def _context(fact: AcceptedFact) -> tuple[str, str]:
    """A few whole words of capture text before and after the snippet, with
    ``…`` where the capture goes on."""
    before, after = fact.context
    before, after = before[-CONTEXT_MAX:], after[:CONTEXT_MAX]
    at_start = fact.offset is not None and fact.offset <= len(before)
    if not at_start and " " in before:
        before = before[before.index(" "):]  # a whole first word
    if len(after) == CONTEXT_MAX and " " in after:
        after = after[:after.rindex(" ")]
    lead = "" if at_start or not before else "…"
    trail = "…" if len(fact.context[1]) > len(after) else ""
    return lead + before, after + trail


#: Hex digits of a fingerprint shown (any unique prefix is accepted by ``citelint review``).
FINGERPRINT_SHOWN = 16


def _approve_line(fingerprint: str | None) -> str:
    """The command that records a person's approval of one citation."""
    if not fingerprint:
        return ""
    return (f"  To approve it once checked against the source: "
            f"`citelint review --approve {fingerprint[:FINGERPRINT_SHOWN]} --by NAME`\n")


def _quotation_quote(q: AcceptedQuotation) -> str:
    """The quotation's sentence, the quoted words in bold, and where they were found."""
    sentence, text = _cut(q.sentence, 2 * SNIPPET_MAX), _cut(q.text, SNIPPET_MAX)
    at = sentence.find(q.text) if q.text else -1
    if at >= 0 and len(q.text) <= SNIPPET_MAX:
        shown = (f"{markdown_cell(sentence[:at])}<b>{markdown_cell(text)}</b>"
                 f"{markdown_cell(sentence[at + len(q.text):])}")
    else:
        shown = f"<b>{markdown_cell(text)}</b>"
    origin = f"{markdown_cell(_cut(q.source, 300))}, revision {code_span(q.capture[:12])}"
    return f"  > {shown}\n  >\n  > — {origin}\n"


def _review_item(notice: Finding, item: AcceptedFact | AcceptedQuotation | None, options: RenderOptions) -> str:
    where = _link(options, notice.path, notice.line, f"line {notice.line}")
    if isinstance(item, AcceptedQuotation):
        what = "quotation link" if item.form == "link" else "quotation"
        return (f"- **{what}** ({where}): check that the quoted words support the sentence they stand in.<br>\n"
                + _approve_line(item.fingerprint) + _quotation_quote(item))
    fact = item
    if fact is None or fact.snippet is None or fact.source is None:
        return f"- {where}: {markdown_cell(_cut(notice.message, MESSAGE_MAX))}\n"
    hints = "; ".join(fact.review) if fact.review else "check that the snippet supports this label"
    before, after = _context(fact)
    quote_line = (f"{markdown_cell(before)}<b>{markdown_cell(_cut(fact.snippet, SNIPPET_MAX))}</b>"
                  f"{markdown_cell(after)}")
    sha = fact.capture_sha256 or ""
    origin = f"{markdown_cell(_cut(fact.source, 300))}, revision {code_span(sha[:12])}"
    if fact.retrieved_at:
        origin += f", captured {markdown_cell(fact.retrieved_at)}"
    # The command goes before the quotation: a line after it would continue the blockquote.
    # A line break (not a new paragraph, which would make the list loose) before the command.
    return (f"- **{markdown_cell(_cut(fact.label, 200))}** ({where}): {markdown_cell(hints)}.<br>\n"
            + _approve_line(fact.fingerprint) + f"  > {quote_line}\n  >\n  > — {origin}\n")


def tier_words(review: Review | None) -> str:
    """A citation's tier in words: what citelint verified, and what a person judged (by whom, when)."""
    if review is None:
        return "excerpt verified by citelint, not yet reviewed"
    verdict = "supports" if review.verdict == "supports" else "does not support"
    return f"reviewed: {verdict}, by {review.by} at {review.at}"


def _reviewed_item(item: AcceptedFact | AcceptedQuotation, options: RenderOptions) -> str:
    review = item.reviewed
    assert review is not None
    where = _link(options, item.path, item.line, f"{item.path} line {item.line}")
    if isinstance(item, AcceptedQuotation):
        name = "quotation " + code_span(_cut(item.text, 80))
    else:
        name = f"**{markdown_cell(_cut(item.label, 200))}**"
    note = f": {markdown_cell(_cut(review.note, MESSAGE_MAX))}" if review.note else ""
    return f"- {name} ({where}): **{markdown_cell(tier_words(review))}**{note}\n"


def _added(notices: list[Finding], citations: Mapping[tuple[str, int, int], AcceptedFact | AcceptedQuotation],
           base: frozenset[str] | None) -> tuple[list[Finding], int]:
    """The semantic-review notices of citations the change added (their fingerprint is
    not in ``base``, the fingerprints the base's reports yield; None: every one counts as
    added), and how many were left out as already on the base."""
    if base is None:
        return notices, 0
    kept = []
    for notice in notices:
        item = citations.get((notice.path, notice.line, notice.col))
        fingerprint = item.fingerprint if item is not None else None
        if fingerprint is None or fingerprint not in base:
            kept.append(notice)
    return kept, len(notices) - len(kept)


class _Body:
    """The summary's parts after the counts, within a byte budget."""

    def __init__(self, budget: int):
        self.parts: list[str] = []
        self.left = budget
        self.full = False

    def add(self, text: str) -> bool:
        """Append ``text`` if it fits (and nothing was refused before); False otherwise."""
        size = len(text.encode("utf-8"))
        if self.full or size > self.left:
            self.full = True
            return False
        self.parts.append(text)
        self.left -= size
        return True


def _grouped(findings: list[Finding]) -> list[tuple[str, list[Finding]]]:
    """Findings by file: the files with the most severe findings first, then by path."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.path, []).append(f)
    return sorted(groups.items(), key=lambda kv: (min(SEVERITY_ORDER[f.severity] for f in kv[1]), kv[0]))


def render(result: CheckResult, out: TextIO, options: RenderOptions, limit: int = SUMMARY_MAX_BYTES) -> None:
    """Append the Markdown summary of ``result`` to ``out``.

    Args:
        result: the check result; every finding and notice is listed (``quiet``
            does not shorten a summary: it is read later, not in a terminal).
        out: text stream the summary is appended to.
        options: ``strict`` (warnings fail) shapes the verdict; ``blob_url``
            makes locations links.
        limit: the summary's largest size in UTF-8 bytes, at most
            :data:`SUMMARY_MAX_BYTES`.
    """
    head = (f"## citelint: {verdict(result, options)}\n\n"
            f"{summary_line(result).removeprefix('citelint: ')}\n\n")  # counts only: no untrusted text
    body = _Body(limit - len(head.encode("utf-8")) - _TAIL_BYTES)
    findings = result.ordered()
    shown_findings = 0
    if findings:
        body.add(f"### Findings ({len(findings):,})\n\n")
        for path, group in _grouped(findings):
            if not body.add(f"#### {markdown_cell(_cut(path, 1000))} ({len(group):,})\n\n"):
                break
            for f in group:
                if not body.add(_finding_item(f, options)):
                    break
                shown_findings += 1
            body.add("\n")
    else:
        body.add("No findings.\n\n")
    extra = [f"- removed by `--fix`: {markdown_cell(f'{f.path}:{f.line}:{f.col}')} "
             f"{markdown_cell(_cut(f.message, MESSAGE_MAX))}\n" for f in result.fixed]
    extra += [f"- {markdown_cell(_cut(w, MESSAGE_MAX))}\n" for w in result.warnings_text]
    if extra and body.add("### Notes\n\n"):
        for item in extra:
            body.add(item)
        body.add("\n")
    citations: dict[tuple[str, int, int], AcceptedFact | AcceptedQuotation] = {
        (a.path, a.line, a.col): a for a in result.accepted if a.state == "cited"}
    citations.update(((q.path, q.line, q.col), q) for q in result.quotations)
    notices, on_base = _added(sorted(result.notices), citations, result.base_fingerprints)
    shown_review = 0
    base_note = (f" ({_plural(on_base, 'more unreviewed citation')} {'was' if on_base == 1 else 'were'} already "
                 "on the base: this list holds only those the change added)" if on_base else "")
    opened = bool(notices) and body.add(
            f"<details>\n<summary>Semantic review: {_plural(len(notices), 'unreviewed citation')} to read "
            "(each excerpt occurs exactly in its capture; whether it supports its label or sentence is for a "
            f"person to judge){base_note}</summary>\n\n"
            "Read each against its source, then record the judgment with the command under it (or "
            "`citelint review --reject FINGERPRINT --by NAME --note WHY`); `citelint review` lists them all.\n\n")
    closed = False
    if opened:
        current = None
        for notice in notices:
            gap = "" if current is None else "\n"  # a blank line ends the previous file's list
            heading = f"{gap}#### {markdown_cell(_cut(notice.path, 1000))}\n\n" if notice.path != current else ""
            if not body.add(heading + _review_item(notice, citations.get((notice.path, notice.line, notice.col)),
                                                   options)):
                break
            current = notice.path
            shown_review += 1
        closed = body.add("\n</details>\n\n")
    elif on_base:
        body.add(f"No unreviewed citation was added by this change ({_plural(on_base, 'unreviewed citation')} "
                 "on the base; `citelint review` lists them).\n\n")
    reviewed = sorted((c for c in citations.values() if c.reviewed is not None),
                      key=lambda c: (c.reviewed is not None and c.reviewed.verdict == "supports", c.path, c.line))
    if reviewed and body.add(
            f"<details>\n<summary>Reviewed by a person: {_plural(len(reviewed), 'citation')} "
            f"({result.reviewed - result.rejected:,} reviewed: supports, {result.rejected:,} reviewed: does not "
            "support)</summary>\n\n"):
        for c in reviewed:
            if not body.add(_reviewed_item(c, options)):
                break
        body.add("\n</details>\n\n")
    tail = "\n</details>\n\n" if opened and not closed else ""
    cut = ""
    if shown_findings < len(findings) or shown_review < len(notices):
        left = [f"{len(findings) - shown_findings:,} of {_plural(len(findings), 'finding')}"] \
            if shown_findings < len(findings) else []
        left += [f"{len(notices) - shown_review:,} of "
                 f"{_plural(len(notices), 'semantic-review entry', 'semantic-review entries')}"] \
            if shown_review < len(notices) else []
        cut = (f"**Cut to stay under GitHub's 1 MiB step-summary limit:** {' and '.join(left)} are not shown. "
               "The full list is in `citelint check --format json` (findings, accepted citations and the "
               "semantic-review list) and in the SARIF file of `--sarif-file`.\n\n")
    out.write(head + cut + "".join(body.parts) + tail)


def did_not_run(message: str, out: TextIO) -> None:
    """Append the summary of a check that ended in a usage or config error
    (exit 2): the verdict that the check did not run, and why (escaped: it
    can quote a file's text)."""
    out.write("## citelint: did not run (exit 2)\n\n**The check did not run** (exit 2): "
              f"{markdown_cell(_cut(message, MESSAGE_MAX))}\n\nFix the problem above and run the check again.\n\n")
