"""An :class:`~citelint.imports.model.Answer` as a report: Markdown or facts.

Markdown (the default): the answer text as the model wrote it, each cited
span followed by one link per citation, numbered in order:

- `` [[1]](URL#:~:text=QUOTE "capture:SHA pages:3-4")``: a quotation
  (DESIGN §9), when the provider returned the cited text; the title names
  the capture it must be checked against, when the request told us which,
  and the PDF pages it is on, for a page-located citation (the grammar:
  :func:`citelint.links.directive.parse_quotation_title`);
- `` [[1]](URL)``: a plain link, when the provider returned no text.

The whole cited text is the directive's single ``start`` term, so all of it
is verified (never a ``start,end`` pair that would let the middle go
unchecked). A provider excerpt (Anthropic web search) is quoted with its
HTML character references decoded and a trailing ``...`` removed: the text
before the cut is still verbatim, and ``check`` stays verbatim.

Links go right after a span's end (before trailing white space). Whether
the model's Markdown would swallow or break them (a span ending inside a
code span, a link, brackets, an HTML comment) is decided by rendering the
result with cmark-gfm, GitHub's parser: if any added link, or any link
the model wrote itself, does not come out as it should, the answer's
Markdown is escaped (every ASCII punctuation character backslash-escaped,
leading indentation written as character references) and the links are
added again, so the report is always what it claims to be.

Facts (``--as facts``): each quotation whose capture is known becomes a
cited fact labelled ``claim-<n>`` (schemas/report.schema.json); every other
citation is named in a message instead.

Sources come from :mod:`citelint.imports.sourcemap` first, then from the URL
the provider named. A citation with neither (or whose URL is unusable) is
**not linked**: it is never dropped. The Markdown report writes
``[n: not linked]`` where its link would be (a Perplexity marker ``[n]``
becomes ``[n: not linked]``), the fact report an ``unavailable`` fact
whose reason says so, and :attr:`Written.unlinked` names it so that the
caller can fail the import; a message says which source map entry would
resolve it. A provider redirect URL is linked as given but reported, with
how to map it to the page itself.

A citation with no position (:attr:`Citation.whole`) is written after the
answer, in a closing ``Sources:`` paragraph, since it supports the answer
as a whole and not its last sentence. A citation whose span is the model's
own marker (:attr:`Citation.marker`, Perplexity's ``[2]``) turns that
marker into the link, keeping the model's number as its text.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

from citelint.imports.model import Answer, Citation
from citelint.imports.sourcemap import how_to_map, map_keys, matched_key, show_key, unused_entries, web_url_problem
from citelint.links.directive import format_quotation_title, format_text_directive, strip_directive

#: URL prefixes of provider redirects: links that lead to the source only through the provider.
REDIRECT_PREFIXES = (
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/",
    "http://vertexaisearch.cloud.google.com/grounding-api-redirect/",
)
#: An HTML character reference with its semicolon (the only form decoded).
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_LEADING_BLANKS = re.compile(r"^[ \t]+", re.M)
#: A whitespace run of a provider's PDF text (``\r\n`` included), quoted as one space.
_PAGE_RUN = re.compile(r"\s+")
_LABEL = "claim-{}"
#: What the report writes where an unlinked citation's link would be.
UNLINKED = "[{}: not linked]"
#: An HTML comment or tag in cmark's output, closed or not: a browser shows nothing of
#: either, and cmark writes a "<" of the text as "&lt;", so every "<" left is markup.
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_HTML_TAG = re.compile(r"<[^>]*(?:>|\Z)")


@dataclass(frozen=True)
class Resolved:
    """Where one citation's link points: ``url`` (None: unresolved),
    ``how`` it was found (``source map`` or ``response``), ``problem`` when
    unresolved or unusable, ``redirect`` when ``url`` is a provider
    redirect, and ``key``: the source map entry used, if one was."""

    url: str | None
    how: str = ""
    problem: str = ""
    redirect: bool = False
    key: str | None = None


def _keys(c: Citation) -> list[str]:
    kind = "search_result" if c.kind == "search_result_location" else "document"
    return map_keys(kind, c.document, c.title, [c.key, c.url])


def resolve(c: Citation, source_map: dict[str, str]) -> Resolved:
    """The URL for citation ``c``: the source map's entry for it (by index,
    title, or the provider's URL: :mod:`citelint.imports.sourcemap`), else
    the provider's own URL when that is an absolute http(s) URL."""
    keys = _keys(c)
    key = matched_key(source_map, keys)
    if key is not None:
        return Resolved(source_map[key], "source map", key=key)
    if c.url is None:
        return Resolved(None, problem=f"no source URL: {how_to_map(keys)}")
    problem = web_url_problem(c.url)
    if problem:
        return Resolved(None, problem=f"the provider's URL {problem}: {how_to_map(keys)}")
    if c.url.startswith(REDIRECT_PREFIXES):
        # A redirect's title is only the site's domain (Gemini): a key shared by every page of
        # that site, so it is not suggested; the chunk index and the redirect itself name one page.
        return Resolved(c.url, "response", redirect=True,
                        problem="the provider's URL is a redirect to the source, not the source: "
                                + how_to_map([k for k in keys if k not in (c.url, c.title)][:1] + [c.url]))
    return Resolved(c.url, "response")


def quotation(c: Citation) -> str | None:
    """The text a quotation link quotes for ``c``, or None when there is none:
    the provider's quote as it is, except for a provider excerpt
    (``entities``: references such as ``&#x27;`` decoded, only the
    semicolon-terminated ones), a cut one (``truncated``: the trailing
    ``...`` removed) and the provider's own text of a PDF (``page_text``:
    U+0002, which Anthropic writes where a page hyphenates a word, removed,
    then each whitespace run, ``\r\n`` included, written as one space; a
    PDF capture joins a paragraph's lines with one space)."""
    text = c.quote
    if text is None:
        return None
    if c.page_text:
        text = _PAGE_RUN.sub(" ", text.replace("\u0002", ""))
    if c.entities:
        text = _REFERENCE.sub(lambda m: html.unescape(m.group(0)), text)
    if c.truncated and text.endswith("..."):
        text = text[:-3]
    return text if text.strip() else None


def _destination(url: str, quote: str | None) -> str:
    """The link destination: ``url`` with a text directive quoting ``quote``
    (added to its fragment), written bare or in ``<>`` when it holds
    parentheses (never through an escape the renderer could read otherwise)."""
    if quote is not None:
        base = strip_directive(url)
        url = base + ("" if "#" in base else "#") + format_text_directive(quote)
    return f"<{url}>" if any(c in url for c in "()") else url


@dataclass(frozen=True)
class Written:
    """A report's text, the messages about it (one line each, for stderr),
    how many citations it holds (links added, or cited facts), ``unlinked``:
    the numbers of the citations the import could give no source URL (each
    marked in ``text``, each named in ``messages``), and ``kept``: how many
    are the model's own links to their URL, kept as written (OpenAI)."""

    text: str
    messages: list[str]
    items: int = 0
    unlinked: tuple[int, ...] = ()
    kept: int = 0


def numbered(answer: Answer) -> list[tuple[int, Citation]]:
    """The citations of ``answer`` with the number both reports give them:
    in order of the span's end (a stable sort, so the adapter's order
    breaks ties), the whole-answer ones (:attr:`Citation.whole`) last."""
    ordered = sorted(answer.citations, key=lambda c: (c.whole, c.end))
    return list(enumerate(ordered, start=1))


def _messages(n: int, c: Citation, r: Resolved) -> list[tuple[int, str]]:
    """The notes and the source problem of citation ``n``, as (n, message) pairs for :func:`_grouped`."""
    out = [(n, note) for note in c.notes]
    if r.problem:
        out.append((n, f"{'not linked: ' if r.url is None else ''}{r.problem}"))
    return out


def _grouped(pairs: list[tuple[int, str]]) -> list[str]:
    """One line per distinct message, naming every citation it is about
    (``citations [3], [5]: ...``), where it first occurs: citations of one
    source share their notes and source map keys, and a key repeated per
    citation reads as several entries to add."""
    numbers: dict[str, list[int]] = {}
    for n, message in pairs:
        got = numbers.setdefault(message, [])
        if n not in got:
            got.append(n)
    return [f"citation{'s' if len(ns) > 1 else ''} {', '.join(f'[{n}]' for n in ns)}: {message}"
            for message, ns in numbers.items()]


def _link(n: int, c: Citation, r: Resolved, quote: str | None) -> str:
    """The link for citation ``n`` (without the space before it): its text is
    the model's marker where the span is one, else ``[n]``."""
    assert r.url is not None
    dest = _destination(r.url, quote)
    claims = format_quotation_title(c.capture, c.pages) if quote is not None else None
    title = f' "{claims}"' if claims else ""
    return f"[[{c.marker or n}]]({dest}{title})"


def _encodable(text: str) -> bool:
    """True when ``text`` is valid Unicode (no lone surrogates), so it can be
    written as UTF-8 and quoted."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escape(text: str) -> str:
    """``text`` with its Markdown disarmed: every ASCII punctuation mark
    backslash-escaped (CommonMark §2.4 allows it for each), leading blanks
    as character references so no line becomes indented code."""
    text = _ASCII_PUNCTUATION.sub(r"\\\1", text)
    return _LEADING_BLANKS.sub(lambda m: "".join(f"&#{ord(ch)};" for ch in m.group(0)), text)


def _insert(text: str, edits: list[tuple[int, int, str]], escape: bool) -> str:
    """The answer text with each ``(start, end, new)`` edit applied: ``new``
    replaces ``text[start:end]`` (an insertion where ``start == end``).
    Edits are applied in order of ``start``; one that begins inside an
    earlier replacement is inserted right after it, so no text is lost."""
    out, at = [], 0
    for start, end, new in sorted(edits, key=lambda x: (x[0], x[1])):
        if start < at:
            start = end = at
        piece = text[at:start]
        out.append(_escape(piece) if escape else piece)
        out.append(new)
        at = end
    out.append(_escape(text[at:]) if escape else text[at:])
    return "".join(out)


def _anchor(text: str, c: Citation) -> int:
    """Where the link or mark of ``c`` goes: the span's end, before trailing
    white space, or, for a span that is the destination of the model's own
    link (``](...)``), after that link's closing parenthesis."""
    at = c.end
    if c.inline:
        return at + 1 if text[at:at + 1] == ")" else at
    while at > c.start and text[at - 1].isspace():
        at -= 1
    return at


def _with_sources(text: str, tail: list[str]) -> str:
    """``text`` and, when there are whole-answer citations, a closing
    ``Sources:`` paragraph holding their links and marks."""
    if not tail:
        return text
    gap = "" if text.endswith("\n\n") or not text else "\n" if text.endswith("\n") else "\n\n"
    return f"{text}{gap}Sources: {' '.join(tail)}\n"


def markdown_report(answer: Answer, source_map: dict[str, str]) -> Written:
    """The Markdown report of ``answer`` (module docstring), resolving
    sources through ``source_map`` (key → URL).

    Returns:
        The report text (ending in a newline), the messages for the
        operator (notes, unresolved sources, redirects, escaping), the
        number of links added, and the numbers of the unlinked citations
        (each marked ``[n: not linked]`` in the text).
    """
    from urllib.parse import unquote

    from citelint.links import extract

    per: list[tuple[int, str]] = []
    used: list[str] = []
    edits: list[tuple[int, int, str]] = []
    tail: list[str] = []
    added: list[tuple[str, str]] = []
    marks: list[str] = []
    unlinked: list[int] = []
    kept = 0
    for n, c in numbered(answer):
        r = resolve(c, source_map)
        per += _messages(n, c, r)
        used += [r.key] if r.key else []
        if r.url is None:
            unlinked.append(n)
            mark = UNLINKED.format(c.marker or n)
            marks.append(mark)
            if c.whole:
                tail.append(mark)
            elif c.marker is not None:
                edits.append((c.start, c.end, mark))
            else:
                edits.append((_anchor(answer.text, c), _anchor(answer.text, c), " " + mark))
            continue
        if c.inline:
            kept += 1
            continue
        quote = quotation(c)
        if quote is not None and not _encodable(quote):
            per.append((n, "its cited text holds lone surrogates (\\ud800-style escapes), "
                           "which are not text: linked without a quotation"))
            quote = None
        link = _link(n, c, r, quote)
        if c.whole:
            tail.append(link)
        elif c.marker is not None:
            edits.append((c.start, c.end, link))
        else:
            at = _anchor(answer.text, c)
            edits.append((at, at, " " + link))
        dest = _destination(r.url, quote)
        added.append((f"[{c.marker or n}]", unquote(dest[1:-1] if dest.startswith("<") else dest)))
    messages = [*answer.warnings, *_grouped(per), *unused_entries(source_map, used)]
    model_links = [link.href for link in extract(answer.text)]
    text = _with_sources(_insert(answer.text, edits, escape=False), tail)
    if (edits or tail) and not _added_intact(text, model_links, added, marks):
        messages.append("the answer's Markdown would have broken the added links or marks, so its Markdown "
                        "characters are escaped in the report")
        text = _with_sources(_insert(answer.text, edits, escape=True), tail)
    text = text if text.endswith("\n") else text + "\n"
    return Written(text, messages, len(added), tuple(unlinked), kept)


def _visible(markdown: str) -> str:
    """The text a reader sees when ``markdown`` is rendered (cmark-gfm, as
    GitHub renders it): the HTML's text, without its tags, attributes and
    comments, character references decoded."""
    from citelint.links.render import GITHUB_EXTENSIONS, render_html

    out = render_html(markdown, GITHUB_EXTENSIONS, True, sourcepos=False)
    return html.unescape(_HTML_TAG.sub("", _HTML_COMMENT.sub("", out)))


def _added_intact(text: str, model_links: list[str], added: list[tuple[str, str]], marks: list[str]) -> bool:
    """True when the report ``text`` renders with exactly the ``added``
    links (text, destination), the model's own links unchanged, and every
    unlinked mark in ``marks`` visible (not swallowed by an HTML comment,
    an attribute or a link destination)."""
    from collections import Counter
    from urllib.parse import unquote

    from citelint.links import extract

    found = [(link.text, unquote(link.href)) for link in extract(text)]
    ours = [f for f in found if f in added]
    theirs = sorted(unquote(h) for t, h in found if (t, h) not in added)
    if sorted(ours) != sorted(added) or theirs != sorted(unquote(h) for h in model_links):
        return False
    if not marks:
        return True
    seen = _visible(text)
    return all(seen.count(mark) >= count for mark, count in Counter(marks).items())


def _unlinked_reason(n: int, c: Citation) -> str:
    """The reason of the ``unavailable`` fact an unlinked citation becomes:
    that it is not linked, and the source map keys that would link it (no
    URL, so that the reason cannot be read as a citation)."""
    keys = " or ".join(show_key(k) for k in [k for k in _keys(c) if k != c.url][:2])
    how = (f"map {keys} to its URL with --source-map" if keys
           else "the provider's URL is not usable" if c.url else "its provider names no source")
    return f"citation [{n}] is not linked: the import found no source URL for it ({how})"


def fact_report(answer: Answer, source_map: dict[str, str]) -> Written:
    """The fact report of ``answer``: one cited fact (label ``claim-<n>``,
    numbered as the Markdown report numbers citations) per citation with a
    quotation, a resolved source and a known capture, and one
    ``unavailable`` fact (same label) per citation that is not linked,
    whose reason says why and how to link it.

    Returns:
        The report as JSON text, the messages (each citation left out, and
        why), the number of cited facts, and the numbers of the unlinked
        citations. The text's ``facts`` may be empty; the caller decides.
    """
    per: list[tuple[int, str]] = []
    used: list[str] = []
    facts = []
    unlinked: list[int] = []
    cited = 0
    for n, c in numbered(answer):
        r = resolve(c, source_map)
        per += _messages(n, c, r)
        used += [r.key] if r.key else []
        quote = quotation(c)
        if r.url is None:
            unlinked.append(n)
            facts.append({"state": "unavailable", "label": _LABEL.format(n), "reason": _unlinked_reason(n, c)})
        elif quote is None or not _encodable(quote):
            per.append((n, "not a fact: the provider returned no cited text"
                         + ("" if quote is None else " that is valid Unicode")))
        elif c.capture is None:
            per.append((n, "not a fact: no capture is known for it (give --request, or "
                         "capture the source and use --as markdown)"))
        else:
            cited += 1
            facts.append({"state": "cited", "label": _LABEL.format(n), "source": r.url,
                          "captureSha256": c.capture, "snippet": quote})
    messages = [*answer.warnings, *_grouped(per), *unused_entries(source_map, used)]
    text = json.dumps({"facts": facts}, ensure_ascii=False, indent=2) + "\n"
    return Written(text, messages, cited, tuple(unlinked))
