"""An :class:`~citelint.imports.model.Answer` as a report: Markdown or facts.

Markdown (the default): the answer text as the model wrote it, each cited
span followed by one link per citation, numbered in order:

- `` [[1]](URL#:~:text=QUOTE "capture:SHA")``: a quotation
  (DESIGN §9), when the provider returned the cited text; the title names
  the capture it must be checked against, when the request told us which;
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
the provider named; a citation with neither is not linked, and a message
says which source map entry would resolve it. A provider redirect URL is
linked as given but reported, with how to map it to the page itself.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

from citelint.imports.model import Answer, Citation
from citelint.imports.sourcemap import how_to_map, lookup, map_keys, web_url_problem
from citelint.links.directive import format_text_directive, strip_directive

#: URL prefixes of provider redirects: links that lead to the source only through the provider.
REDIRECT_PREFIXES = (
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/",
    "http://vertexaisearch.cloud.google.com/grounding-api-redirect/",
)
#: An HTML character reference with its semicolon (the only form decoded).
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_LEADING_BLANKS = re.compile(r"^[ \t]+", re.M)
_LABEL = "claim-{}"


@dataclass(frozen=True)
class Resolved:
    """Where one citation's link points: ``url`` (None: unresolved),
    ``how`` it was found (``source map`` or ``response``), ``problem`` when
    unresolved or unusable, and ``redirect`` when ``url`` is a provider
    redirect."""

    url: str | None
    how: str = ""
    problem: str = ""
    redirect: bool = False


def _keys(c: Citation) -> list[str]:
    kind = "search_result" if c.kind == "search_result_location" else "document"
    return map_keys(kind, c.document, c.title, [c.url])


def resolve(c: Citation, source_map: dict[str, str]) -> Resolved:
    """The URL for citation ``c``: the source map's entry for it (by index,
    title, or the provider's URL: :mod:`citelint.imports.sourcemap`), else
    the provider's own URL when that is an absolute http(s) URL."""
    keys = _keys(c)
    mapped = lookup(source_map, keys)
    if mapped is not None:
        return Resolved(mapped, "source map")
    if c.url is None:
        return Resolved(None, problem=f"no source URL: {how_to_map(keys)}")
    problem = web_url_problem(c.url)
    if problem:
        return Resolved(None, problem=f"the provider's URL {problem}: {how_to_map(keys)}")
    if c.url.startswith(REDIRECT_PREFIXES):
        return Resolved(c.url, "response", redirect=True,
                        problem="the provider's URL is a redirect to the source, not the source: "
                                + how_to_map([k for k in keys if k != c.url][:1] + [c.url]))
    return Resolved(c.url, "response")


def quotation(c: Citation) -> str | None:
    """The text a quotation link quotes for ``c``, or None when there is none:
    the provider's quote as it is, except for a provider excerpt
    (``entities``: references such as ``&#x27;`` decoded, only the
    semicolon-terminated ones) and a cut one (``truncated``: the trailing
    ``...`` removed)."""
    text = c.quote
    if text is None:
        return None
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
    and how many citations it holds (links, or facts)."""

    text: str
    messages: list[str]
    items: int = 0


def _messages(n: int, c: Citation, r: Resolved) -> list[str]:
    out = [f"citation [{n}]: {note}" for note in c.notes]
    if r.problem:
        out.append(f"citation [{n}]: {'not linked: ' if r.url is None else ''}{r.problem}")
    return out


def _link(n: int, c: Citation, r: Resolved, quote: str | None) -> str:
    assert r.url is not None
    dest = _destination(r.url, quote)
    title = f' "capture:{c.capture}"' if c.capture and quote is not None else ""
    return f" [[{n}]]({dest}{title})"


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


def _insert(text: str, links: list[tuple[int, str]], escape: bool) -> str:
    """The answer text with each ``(offset, link)`` inserted at its offset."""
    out, at = [], 0
    for offset, link in sorted(links, key=lambda x: x[0]):
        piece = text[at:offset]
        out.append(_escape(piece) if escape else piece)
        out.append(link)
        at = offset
    out.append(_escape(text[at:]) if escape else text[at:])
    return "".join(out)


def markdown_report(answer: Answer, source_map: dict[str, str]) -> Written:
    """The Markdown report of ``answer`` (module docstring), resolving
    sources through ``source_map`` (key → URL).

    Returns:
        The report text (ending in a newline) and the messages for the
        operator: notes, unresolved sources, redirects, escaping.
    """
    from urllib.parse import unquote

    from citelint.links import extract

    messages = list(answer.warnings)
    links: list[tuple[int, str]] = []
    added: list[tuple[str, str]] = []
    for n, c in enumerate(sorted(answer.citations, key=lambda c: c.end), start=1):
        r = resolve(c, source_map)
        messages += _messages(n, c, r)
        if c.inline or r.url is None:
            continue
        quote = quotation(c)
        if quote is not None and not _encodable(quote):
            messages.append(f"citation [{n}]: its cited text holds lone surrogates (\\ud800-style escapes), "
                            "which are not text: linked without a quotation")
            quote = None
        at = c.end
        while at > c.start and answer.text[at - 1].isspace():
            at -= 1
        link = _link(n, c, r, quote)
        links.append((at, link))
        dest = _destination(r.url, quote)
        added.append((f"[{n}]", unquote(dest[1:-1] if dest.startswith("<") else dest)))
    model_links = [link.href for link in extract(answer.text)]
    text = _insert(answer.text, links, escape=False)
    if links and not _added_intact(text, model_links, added):
        messages.append("the answer's Markdown would have broken the added links, so its Markdown "
                        "characters are escaped in the report")
        text = _insert(answer.text, links, escape=True)
    return Written(text if text.endswith("\n") else text + "\n", messages, len(links))


def _added_intact(text: str, model_links: list[str], added: list[tuple[str, str]]) -> bool:
    from urllib.parse import unquote

    from citelint.links import extract

    found = [(link.text, unquote(link.href)) for link in extract(text)]
    ours = [f for f in found if f in added]
    theirs = sorted(unquote(h) for t, h in found if (t, h) not in added)
    return sorted(ours) == sorted(added) and theirs == sorted(unquote(h) for h in model_links)


def fact_report(answer: Answer, source_map: dict[str, str]) -> Written:
    """The fact report of ``answer``: one cited fact (label ``claim-<n>``,
    numbered as the Markdown report numbers citations) per citation with a
    quotation, a resolved source and a known capture.

    Returns:
        The report as JSON text and the messages (each citation left out,
        and why). The text's ``facts`` may be empty; the caller decides.
    """
    messages = list(answer.warnings)
    facts = []
    for n, c in enumerate(sorted(answer.citations, key=lambda c: c.end), start=1):
        r = resolve(c, source_map)
        messages += _messages(n, c, r)
        quote = quotation(c)
        if quote is None or not _encodable(quote):
            messages.append(f"citation [{n}]: not a fact: the provider returned no cited text"
                            + ("" if quote is None else " that is valid Unicode"))
        elif r.url is None:
            messages.append(f"citation [{n}]: not a fact: its source is not resolved")
        elif c.capture is None:
            messages.append(f"citation [{n}]: not a fact: no capture is known for it (give --request, or "
                            "capture the source and use --as markdown)")
        else:
            facts.append({"state": "cited", "label": _LABEL.format(n), "source": r.url,
                          "captureSha256": c.capture, "snippet": quote})
    text = json.dumps({"facts": facts}, ensure_ascii=False, indent=2) + "\n"
    return Written(text, messages, len(facts))
