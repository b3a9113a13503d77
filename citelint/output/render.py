"""``citelint render``'s formats: a :class:`~citelint.reader.view.ReaderView` as HTML or Markdown.

The reader view never blurs evidence and estimate: a verified excerpt is a
quotation (``blockquote`` with ``cite``, then its source link, capture date
and short digest), set apart from the report's own words; an unavailable
fact reads as unverified, with the report's reason and, from the label's
``check_at``, where the reader can check; a fact that failed the check
shows only its label and why, nothing of its claimed evidence.

HTML is one self-contained file: no script, no external load (the
Content-Security-Policy is ``default-src 'none'`` with the one inline style
allowed by its SHA-256, CSP Level 3 §2.3), every untrusted string escaped
(:func:`citelint.escape.html_text`), headings, lists and landmarks for
assistive technology, colours at WCAG 2.1 AA contrast or better.

Pure functions of the view: nothing here reads a file or the environment.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import quote

from citelint.escape import code_span, html_text, markdown_cell
from citelint.model import RULES, Finding, Review
from citelint.reader.view import FactItem, LinkMark, ReaderView

# Contrast on white, per WCAG 2.1 (1.4.3, at least 4.5:1): #1f2328 15.8:1,
# #59636e 6.1:1, #0550ae 7.6:1; each badge's text on its background: green
# #116329 on #dafbe1 6.9:1, red #82071e on #ffebe9 9.6:1, amber #6c3b00 on
# #fff8c5 8.6:1.
STYLE = """\
:root{color-scheme:light}
body{margin:0;background:#fff;color:#1f2328;font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",
Helvetica,Arial,sans-serif;overflow-wrap:anywhere}
header,main,footer{max-width:52rem;margin:0 auto;padding:0 1.25rem}
header{padding-top:1.5rem;border-bottom:1px solid #d1d9e0}
.kicker{margin:0;color:#59636e;font-size:.875rem;text-transform:uppercase;letter-spacing:.04em}
h1{margin:.25rem 0 .5rem;font-size:1.6rem;line-height:1.25}
h2{margin:2rem 0 .75rem;font-size:1.3rem;border-bottom:1px solid #d1d9e0;padding-bottom:.25rem}
h3{margin:0 0 .5rem;font-size:1.05rem}
a{color:#0550ae}
code{font:.875em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eff2f5;padding:.1em .3em;
border-radius:4px}
.legend{color:#59636e;font-size:.925rem}
.verdict{font-weight:600}
.badge{display:inline-block;font-size:.8rem;font-weight:600;padding:.05rem .5rem;border-radius:1rem;
vertical-align:middle;margin:0 .35rem;white-space:nowrap}
.verdict .badge{margin-left:0}
.ok{background:#dafbe1;color:#116329}.bad{background:#ffebe9;color:#82071e}.warn{background:#fff8c5;color:#6c3b00}
.fact{border:1px solid #d1d9e0;border-radius:6px;padding:1rem 1.1rem;margin:0 0 1rem}
.fact.rejected,.fact.disputed{border-color:#ff8182}.fact.unavailable{border-color:#d4a72c}
.claim{margin:.25rem 0 .75rem}
.claim .k,.where .k{color:#59636e;font-size:.85rem;font-weight:600;text-transform:uppercase;letter-spacing:.03em}
figure{margin:0}
blockquote{margin:0;padding:.6rem 1rem;border-left:.3rem solid #0969da;background:#f6f8fa;font-family:Georgia,
"Times New Roman",serif;font-size:1.05rem;white-space:pre-wrap}
blockquote p{margin:0}
figcaption{margin-top:.4rem;color:#59636e;font-size:.875rem}
.review{color:#59636e;font-size:.875rem;margin:.5rem 0 0}
.problems{margin:.25rem 0 0;padding-left:1.25rem}
.body blockquote{font-family:inherit;font-size:inherit;white-space:normal;border-left-color:#d1d9e0}
.body table{border-collapse:collapse}.body th,.body td{border:1px solid #d1d9e0;padding:.25rem .6rem}
.mark{font-size:.75rem;font-weight:600;padding:0 .35rem;border-radius:1rem;margin-left:.2rem;white-space:nowrap}
.notice{font-size:.8rem;font-weight:600;padding:0 .35rem;border-radius:.25rem;margin-left:.2rem}
.span-ok{text-decoration:underline solid #1a7f37 .08em;text-underline-offset:.2em}
.span-bad{background:#ffebe9;color:#82071e;text-decoration:line-through wavy #cf222e .06em}
.span-warn{background:#fff8c5;color:#6c3b00;text-decoration:underline dotted #9a6700 .12em;
text-underline-offset:.2em}
a.mark{text-decoration:none}a.mark:hover,a.mark:focus{text-decoration:underline}
.notes{padding-left:1.5rem}.notes>li{margin:0 0 1rem;padding-left:.25rem}.notes p{margin:.25rem 0}
.tier{margin:0 0 .35rem}.tier .badge{margin-left:0}
.flat{text-decoration:underline dotted #82071e}
.image{color:#59636e;font-style:italic}
.sources li{margin-bottom:.35rem}
footer{color:#59636e;font-size:.85rem;padding-top:1rem;padding-bottom:2rem;border-top:1px solid #d1d9e0;
margin-top:2rem}
"""


def content_security_policy(style: str = STYLE) -> str:
    """The page's policy: nothing may load or run but the one style element (by its hash)."""
    digest = base64.b64encode(hashlib.sha256(style.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


def _short(sha: str | None) -> str:
    return (sha or "")[:12]


def _http(url: str | None) -> bool:
    return bool(url) and re.match(r"https?://[^\s]+\Z", url or "", re.IGNORECASE) is not None


def _problem_html(f: Finding) -> str:
    rule = RULES.get(f.rule)
    name = f'<a href="{html_text(rule.help_uri)}">{f.rule}</a>' if rule else html_text(f.rule)
    return (f'<li><span class="badge {"bad" if f.severity == "error" else "warn"}">{f.severity}</span> '
            f"{name} at line {f.line}: {html_text(f.message)}</li>")


def _fact_html(n: int, item: FactItem) -> str:
    label = html_text(item.label)
    claim = item.info.description if item.info is not None else None
    claim_html = f'<p class="claim"><span class="k">Claim</span> {html_text(claim)}</p>\n' if claim else ""
    if item.status == "verified" and item.fact is not None:
        fact = item.fact
        src = html_text(fact.source or "")
        link = f'<a href="{src}">{src}</a>' if _http(fact.source) else src
        when = f', captured <time datetime="{html_text(fact.retrieved_at)}">{html_text(fact.retrieved_at)}</time>' \
            if fact.retrieved_at else ""
        css, words, rest = tier(fact.reviewed)
        review = f'<p class="review">Not checked by citelint: {html_text("; ".join(fact.review))}.</p>\n' \
            if fact.review else ""
        review += f'<p class="review">{html_text(judgment(fact.reviewed, "claim"))}</p>\n'
        warnings = _problems_block(item.problems)
        disputed = " disputed" if css == "bad" else ""
        return (f'<article class="fact verified{disputed}" aria-labelledby="f{n}">\n'
                f'<h3 id="f{n}">{label}<span class="badge {css}">{words}</span></h3>\n{claim_html}'
                f'<figure>\n<blockquote cite="{src}"><p>{html_text(fact.snippet or "")}</p></blockquote>\n'
                f'<figcaption>— <cite>{link}</cite>{when}, revision '
                f'<code title="{html_text(fact.capture_sha256 or "")}">'
                f"{_short(fact.capture_sha256)}</code></figcaption>\n</figure>\n{review}{warnings}</article>\n")
    if item.status == "unavailable" and item.fact is not None:
        where = item.info.check_at if item.info is not None else None
        if where:
            shown = f'<a href="{html_text(where)}">{html_text(where)}</a>' if _http(where) else html_text(where)
            check = f'<p class="where"><span class="k">Where to check</span> {shown}</p>\n'
        else:
            check = ('<p class="where"><span class="k">Where to check</span> not configured (the label has no '
                     "<code>check_at</code> in the config)</p>\n")
        return (f'<article class="fact unavailable" aria-labelledby="f{n}">\n'
                f'<h3 id="f{n}">{label}<span class="badge warn">unverified: not available</span></h3>\n{claim_html}'
                f"<p>The report gives no source for this fact. Its reason: {html_text(item.fact.reason or '')}</p>\n"
                f"{check}{_problems_block(item.problems)}</article>\n")
    return (f'<article class="fact rejected" aria-labelledby="f{n}">\n'
            f'<h3 id="f{n}">{label}<span class="badge bad">✗ not verified: failed the check</span></h3>\n'
            f"{claim_html}<p>Nothing of this fact is shown as evidence. Why:</p>\n"
            f"{_problems_block(item.problems) or '<p>(no finding located in it)</p>'}</article>\n")


def _problems_block(problems: tuple[Finding, ...]) -> str:
    if not problems:
        return ""
    return '<ul class="problems">\n' + "\n".join(_problem_html(f) for f in problems) + "\n</ul>\n"


#: Each mark's badge colour and words (words, not only colour: a reader without colour, or a
#: screen reader, is told the same), and how the span it follows is set apart in the sentence.
_MARK_HTML = {
    "quote-verified": ("ok", "✓ quotation verified", ""),
    "quote-unverified": ("bad", "✗ quotation not found in the source", "span-bad"),
    "removed": ("bad", "✗ link removed: not verified", ""),
    "prose-verified": ("ok", "✓ quotation verified", "span-ok"),
    "prose-failed": ("bad", "✗ quotation not found in the cited source", "span-bad"),
    "number-failed": ("warn", "⚠ figure not found in the cited source", "span-warn"),
    "number-unverified": ("warn", "⚠ unverified figure", "span-warn"),
}

def tier(review: Review | None) -> tuple[str, str, str]:
    """A verified citation's tier: (badge colour, badge words, what follows in words).

    Three tiers, each named in words (DESIGN: never blur what a machine matched with
    what a person concluded): the excerpt verified by citelint and nobody has judged
    it; a person reviewed it and found it supports its claim; or found it does not.
    """
    if review is None:
        return "ok", "✓ excerpt verified by citelint", "not yet reviewed by a person"
    who = f"by {review.by}, {review.at}" + (f": {review.note}" if review.note else "")
    if review.verdict == "supports":
        return "ok", "✓ reviewed: supports", who
    return "bad", "✗ reviewed: does not support", who


def judgment(review: Review | None, what: str) -> str:
    """One sentence on who judged a verified citation against ``what`` (``claim``, ``sentence``)."""
    if review is None:
        return f"Not yet reviewed by a person: citelint verified the excerpt, not that it supports the {what}."
    verdict = "supports" if review.verdict == "supports" else "does not support"
    note = f" Note: {review.note}" if review.note else ""
    return f"Reviewed by {review.by}, {review.at}: the excerpt {verdict} the {what}.{note}"


def _tier_html(review: Review | None) -> str:
    css, words, rest = tier(review)
    return f'<span class="badge {css}">{words}</span> {html_text(rest)}'


def _where_to_check(mark: LinkMark) -> str:
    """An unverified number's notice: where a reader can check it (the removed links, as text)."""
    if not mark.removed:
        return "the sentence cites no source for it"
    shown = ", ".join(mark.removed)
    return f"its citation failed the check and was removed ({shown}): check it there"


def _mark_words(mark: LinkMark, view: ReaderView) -> tuple[str, str]:
    """A mark's badge colour and words; a verified quotation's say what a person judged too."""
    css, words, _ = _MARK_HTML[mark.kind]
    review = view.notes[mark.note - 1].reviewed if 0 < mark.note <= len(view.notes) else None
    if review is not None:
        css, judged, _ = tier(review)
        words = f"{words}; {judged.removeprefix('✓ ').removeprefix('✗ ')}"
    return css, words


def _mark_html(mark: LinkMark, view: ReaderView) -> str:
    css, words = _mark_words(mark, view)
    if mark.kind == "number-failed" and any(f.severity == "error" for f in mark.problems):
        css = "bad"
    why = "; ".join(f"{f.rule}: {f.message}" for f in mark.problems)
    title = f' title="{html_text(why)}"' if why else ""
    if mark.kind == "number-unverified":
        return f'<span class="notice warn">{words}: {html_text(_where_to_check(mark))}</span>'
    if mark.note:
        # The mark itself leads to the evidence; "evidence N", not "[N]": a report's own
        # citation markers are often [1], [2]...
        return (f'<a class="mark {css}" id="ref-{mark.note}" href="#evidence-{mark.note}"{title}>{words} '
                f"(evidence {mark.note})</a>")
    return f'<span class="mark {css}"{title}>{words}</span>'


def _body_html(view: ReaderView) -> str:
    from citelint.output.sanitize import markdown_to_safe_html

    ends = {m.token: m for m in view.marks}
    opening = {m.start: m for m in view.marks if m.start}
    token = re.compile(re.escape(view.token_prefix) + r"[0-9]+[SZ]") if view.token_prefix else None
    open_spans: list[str] = []  # the classes of the spans open where the text has come to

    def wrap(piece: str) -> str:
        return f'<span class="{open_spans[-1]}">{piece}</span>' if open_spans and piece else piece

    def text(data: str) -> str:
        # Called once per text node in document order; a span may cross inline markup, so
        # each text node inside it is wrapped on its own and the HTML stays well formed.
        escaped = html_text(data)
        if token is None:
            return escaped
        out, last = [], 0
        for m in token.finditer(escaped):
            out.append(wrap(escaped[last:m.start()]))
            last = m.end()
            if m.group() in opening:
                open_spans.append(_MARK_HTML[opening[m.group()].kind][2])
            elif m.group() in ends:
                mark = ends[m.group()]
                if mark.start and open_spans:
                    open_spans.pop()
                out.append(_mark_html(mark, view))
        out.append(wrap(escaped[last:]))
        return "".join(out)

    return markdown_to_safe_html(view.markdown, view.vouched, text=text,
                                 unlinked=lambda: '<span class="mark bad">✗ link not verified</span>')


def _judged(review: Review | None) -> str:
    """What citelint verified of a quotation, and whether a person has judged the rest."""
    if review is None:
        return "citelint found these words in the capture; whether they support the sentence is for a person to judge."
    return "citelint found these words in the capture; a person judged whether they support the sentence (above)."


def _notes_html(view: ReaderView) -> str:
    """The evidence of each verified quotation, numbered as its mark in the text."""
    if not view.notes:
        return ""
    items = []
    for note in view.notes:
        src = html_text(note.source)
        link = f'<a href="{src}">{src}</a>' if _http(note.source) else src
        when = f', captured <time datetime="{html_text(note.retrieved_at)}">{html_text(note.retrieved_at)}</time>' \
            if note.retrieved_at else ""
        revision = (f', revision <code title="{html_text(note.sha256)}">{_short(note.sha256)}</code>'
                    if note.sha256 else ", the newest revision")
        sentence = (f'<p class="review">In the sentence: “{html_text(note.sentence)}”</p>\n'
                    if note.sentence and note.sentence != note.text else "")
        items.append(
            f'<li id="evidence-{note.number}">\n<p class="tier">{_tier_html(note.reviewed)}</p>\n'
            f'<figure>\n<blockquote cite="{src}"><p>{html_text(note.text)}</p></blockquote>\n'
            f"<figcaption>— <cite>{link}</cite>{when}{revision}</figcaption>\n</figure>\n{sentence}"
            f'<p class="review">{_judged(note.reviewed)} <a href="#ref-{note.number}">Back to the text</a>'
            "</p>\n</li>\n")
    return ('<section aria-labelledby="evidence"><h2 id="evidence">Evidence for the quotations</h2>\n'
            '<ol class="notes">\n' + "".join(items) + "</ol>\n</section>\n")


def _tally(view: ReaderView) -> str:
    if view.kind == "facts":
        n = {s: sum(1 for f in view.facts if f.status == s) for s in ("verified", "unavailable", "rejected")}
        judged = [f.fact.reviewed.verdict for f in view.facts
                  if f.status == "verified" and f.fact is not None and f.fact.reviewed is not None]
        supports = judged.count("supports")
        reviewed = (f" ({supports} reviewed: supports, {len(judged) - supports} reviewed: does not support)"
                    if judged else "")
        return (f"{len(view.facts)} fact{'s' * (len(view.facts) != 1)}: {n['verified']} quoted from a captured "
                f"source and verified{reviewed}, {n['unavailable']} unavailable, {n['rejected']} not verified")
    n = {k: sum(1 for m in view.marks if m.kind == k) for k in _MARK_HTML}
    verified = n["quote-verified"] + n["prose-verified"]
    failed = n["quote-unverified"] + n["prose-failed"]
    figures = n["number-failed"] + n["number-unverified"]
    parts = [f"{n['removed']} unverified link{'s' * (n['removed'] != 1)} shown as plain text"]
    if verified or failed:
        parts.append(f"{verified} quotation{'s' * (verified != 1)} verified, {failed} not verified")
    if figures:
        parts.append(f"{figures} figure{'s' * (figures != 1)} not verified")
    return "; ".join(parts)


def render_html(view: ReaderView, version: str) -> str:
    """The reader view as one self-contained HTML document (UTF-8 text)."""
    ok = view.errors == 0
    verdict = "The check passed" if ok else f"The check found {view.errors} error{'s' * (view.errors != 1)}"
    legend = ("Quoted excerpts, set in a box with a blue bar, occur word for word in the captured revision of "
              "the source named under them. citelint does not check that an excerpt supports the claim it is "
              "attached to: the claims are the report's own. Each excerpt says whether a person has reviewed it "
              "against its claim, and who: \u201creviewed: supports\u201d or \u201creviewed: does not "
              "support\u201d." if view.kind == "facts" else
              "Links stay links only when they point at a captured source; the others are shown as plain text and "
              "marked. A quotation (in quotation marks, or a link naming a passage with #:~:text=) is marked "
              "verified when its words occur word for word in the capture it cites, and numbered: its evidence is "
              "under the report. A quotation or figure the cited capture does not hold is struck through or "
              "highlighted where it stands, with the reason in words. citelint does not check that a source "
              "supports the sentence that cites it.")
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">\n',
        '<meta name="referrer" content="no-referrer">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f'<meta name="generator" content="citelint {html_text(version)}">\n',
        f"<title>{html_text(view.path)} · citelint reader view</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        f'<header>\n<p class="kicker">citelint reader view</p>\n<h1>{html_text(view.path)}</h1>\n',
        f'<p class="verdict"><span class="badge {"ok" if ok else "bad"}">{"passed" if ok else "failed"}</span> '
        f"{verdict}: {html_text(_tally(view))}.</p>\n",
        f'<p class="legend">{legend}</p>\n</header>\n<main>\n',
    ]
    if view.kind == "facts":
        parts.append('<section aria-labelledby="facts"><h2 id="facts">Facts</h2>\n')
        parts += [_fact_html(n, item) for n, item in enumerate(view.facts, 1)]
        if not view.facts:
            parts.append("<p>No fact could be read from this report.</p>\n")
        parts.append("</section>\n")
    else:
        parts.append(f'<section aria-labelledby="report"><h2 id="report">Report</h2>\n<div class="body">\n'
                     f"{_body_html(view)}</div>\n</section>\n{_notes_html(view)}")
    parts.append('<section aria-labelledby="sources"><h2 id="sources">Captured sources used</h2>\n')
    if view.sources:
        parts.append('<ul class="sources">\n')
        for s in view.sources:
            src = html_text(s.source)
            link = f'<a href="{src}">{src}</a>' if _http(s.source) else src
            when = f", captured {html_text(s.retrieved_at)}" if s.retrieved_at else ""
            parts.append(f"<li><cite>{link}</cite>: revision <code>{_short(s.sha256)}</code>{when}; "
                         f"used {s.uses} time{'s' * (s.uses != 1)}</li>\n")
        parts.append("</ul>\n")
    else:
        parts.append("<p>None: nothing in this report is verified against a capture.</p>\n")
    parts.append("</section>\n")
    if view.problems:
        title = "Other findings" if view.kind == "facts" else "Findings of the check"
        parts.append(f'<section aria-labelledby="other"><h2 id="other">{title}</h2>\n'
                     + _problems_block(view.problems) + "</section>\n")
    parts.append(f"</main>\n<footer>\n<p>Rendered by citelint {html_text(version)} from a check of this report: "
                 f"{html_text(view.counts)}.</p>\n</footer>\n</body>\n</html>\n")
    return "".join(parts)


# ----------------------------------------------------------------------------- Markdown

def _md_link(url: str) -> str:
    """``url`` as a Markdown link whose text shows it literally."""
    dest = quote(url, safe="/:?#[]@!$&'*+,;=%~-._")
    return f"[{markdown_cell(url)}](<{dest}>)" if _http(url) else markdown_cell(url)


def _problems_md(problems: tuple[Finding, ...]) -> str:
    return "".join(f"- **{f.severity}** {f.rule} at line {f.line}: {markdown_cell(f.message)}\n" for f in problems)


def _fact_md(item: FactItem) -> str:
    claim = item.info.description if item.info is not None else None
    head = f"### {markdown_cell(item.label)}"
    claim_md = f"Claim: {markdown_cell(claim)}\n\n" if claim else ""
    if item.status == "verified" and item.fact is not None:
        fact = item.fact
        when = f", captured {markdown_cell(fact.retrieved_at)}" if fact.retrieved_at else ""
        review = f"Not checked by citelint: {markdown_cell('; '.join(fact.review))}.\n\n" if fact.review else ""
        quoted = "\n>\n".join(f"> {markdown_cell(line)}" for line in (fact.snippet or "").split("\n"))
        words = tier(fact.reviewed)[1]
        review += f"{markdown_cell(judgment(fact.reviewed, 'claim'))}\n\n"
        return (f"{head} ({words})\n\n{claim_md}{quoted}\n\n— {_md_link(fact.source or '')}{when}, "
                f"revision {code_span(_short(fact.capture_sha256))}\n\n{review}{_problems_md(item.problems)}\n")
    if item.status == "unavailable" and item.fact is not None:
        where = item.info.check_at if item.info is not None else None
        check = f"Where to check: {_md_link(where)}\n\n" if where else \
            "Where to check: not configured (the label has no `check_at` in the config)\n\n"
        return (f"{head} (unverified: not available)\n\n{claim_md}The report gives no source for this fact. "
                f"Its reason: {markdown_cell(item.fact.reason or '')}\n\n{check}{_problems_md(item.problems)}\n")
    return (f"{head} (✗ not verified: failed the check)\n\n{claim_md}Nothing of this fact is shown as evidence. "
            f"Why:\n\n{_problems_md(item.problems) or '(no finding located in it)'}\n\n")


def _mark_md(mark: LinkMark, view: ReaderView) -> str:
    """A mark in the report's own Markdown: its words in parentheses, after ``⟧`` when it closes a span."""
    words = _mark_words(mark, view)[1]
    if mark.kind == "number-unverified":
        words += ": " + markdown_cell(_where_to_check(mark))
    if mark.note:
        words += f": evidence [{mark.note}] above"
    return ("⟧" if mark.start else "") + f" *({words})*"


def _notes_md(view: ReaderView) -> str:
    if not view.notes:
        return ""
    parts = ["## Evidence for the quotations\n\n"]
    for note in view.notes:
        when = f", captured {markdown_cell(note.retrieved_at)}" if note.retrieved_at else ""
        revision = f", revision {code_span(_short(note.sha256))}" if note.sha256 else ", the newest revision"
        sentence = (f"   In the sentence: “{markdown_cell(note.sentence)}”\n\n"
                    if note.sentence and note.sentence != note.text else "")
        _, words, rest = tier(note.reviewed)
        parts.append(f"{note.number}. **{words}**, {markdown_cell(rest)}\n\n"
                     f"   > {markdown_cell(note.text)}\n\n   — {_md_link(note.source)}{when}{revision}\n\n{sentence}")
    return "".join(parts)


def render_markdown(view: ReaderView, version: str) -> str:
    """The reader view as GitHub-flavoured Markdown (the same parts as :func:`render_html`)."""
    verdict = "The check passed" if view.errors == 0 else \
        f"The check found {view.errors} error{'s' * (view.errors != 1)}"
    parts = [f"# {markdown_cell(view.path)}\n\n*citelint reader view.* **{verdict}: {_tally(view)}.** "
             "Quoted excerpts occur word for word in the captured revision of the source named under them; "
             "citelint does not check that an excerpt supports the claim it is attached to.\n\n"]
    if view.kind == "facts":
        parts.append("## Facts\n\n")
        parts += [_fact_md(item) for item in view.facts]
    parts.append(_notes_md(view))
    parts.append("## Captured sources used\n\n")
    parts += [f"- {_md_link(s.source)}: revision {code_span(_short(s.sha256))}"
              f"{', captured ' + markdown_cell(s.retrieved_at) if s.retrieved_at else ''}; "
              f"used {s.uses} time{'s' * (s.uses != 1)}\n" for s in view.sources] or \
        ["None: nothing in this report is verified against a capture.\n"]
    if view.problems:
        title = "Other findings" if view.kind == "facts" else "Findings of the check"
        parts.append(f"\n## {title}\n\n" + _problems_md(view.problems))
    parts.append(f"\n---\n\nRendered by citelint {markdown_cell(version)} from a check of this report: "
                 f"{markdown_cell(view.counts)}.\n")
    if view.kind != "facts":
        # The report's own Markdown comes last, so nothing it holds (an unclosed comment or
        # fence, headings of its own) can hide or imitate the sections citelint wrote above.
        body = view.markdown
        for mark in view.marks:
            body = body.replace(mark.token, _mark_md(mark, view))
            if mark.start:
                body = body.replace(mark.start, "⟦")
        parts.append("\n## Report, as its author wrote it (links checked)\n\n" + body.rstrip("\n") + "\n")
    return "".join(parts)


#: ``citelint render --format`` name -> the function writing a view in it
#: (the CLI takes its choices from here).
RENDER_FORMATS = {"html": render_html, "md": render_markdown}
