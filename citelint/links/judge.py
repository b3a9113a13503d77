"""Judging links: the rules CL201, CL202 and CL203 (:func:`judge`, :func:`govern`, :func:`check`),
for a link the run's evidence does not ground for another reason CL103, CL109 or CL401-CL403
(:meth:`citelint.links.grounds.LinkEvidence.decide`), and, through :mod:`citelint.links.quote`,
the quotation rules (CL204).

:func:`check` is what ``citelint check`` runs: every link judged from
cmark's output, only the blocks with a finding located.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from citelint import urls
from citelint.links.grounds import LinkEvidence, Reason
from citelint.links.link import Link, LinkIssue, cjk_cut
from citelint.links.render import (
    GITHUB_EXTENSIONS,
    SOURCEPOS_KEY,
    Keep,
    footnotes_start,
    render_html,
    scan_link_tuples,
    scan_links,
)
from citelint.model import RULES

if TYPE_CHECKING:
    from collections.abc import Callable

    from citelint.links.allowlist import Allowlist
    from citelint.store.captures import CaptureRecord, Store


def show_url(value: str, limit: int = 200) -> str:
    """A URL or text safe to put in a message: escapes controls, bounds length."""
    shown = value if len(value) <= limit else value[:limit] + "…"
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in shown)


def judge(links: Iterable[Link], evidence: LinkEvidence, *, relative: str = "pass") -> list[LinkIssue]:
    """Decide each link against ``evidence`` and return the issues, in link order.

    ``links`` are links as :func:`extract` gives them. ``relative`` is
    ``"pass"`` (site-relative links are fine) or ``"error"`` (they are
    CL202). A governed link not grounded is reported under the one rule of
    its :class:`~citelint.links.grounds.Reason`: CL201 (naming a near miss
    when there is one), or CL103, CL109, CL401-CL403 (the evidence needs
    repair, and ``--fix`` must not delete a correct citation because of it);
    disallowed schemes and malformed destinations are CL202; a bare URL
    running on past CJK punctuation is CL203 in addition. Raises nothing.
    """
    issues: list[LinkIssue] = []
    decide = evidence.decide
    for link in links:
        cat = link.category
        decision = decide(link.cited) if cat == "governed" else None
        if decision is not None and decision.reason is Reason.GROUNDED and link.form != "bare":
            continue  # the common case, decided without building anything
        at = (link.line, link.col, link.end_line, link.end_col)
        if decision is not None and decision.reason is not Reason.GROUNDED:
            issues.append(_ungrounded(link, decision.reason, decision.detail, evidence.grounding, at))
        elif cat in ("disallowed", "malformed"):
            reason = urls.unvouchable_reason(link.cited) or "not a vouchable destination"
            issues.append(LinkIssue(
                "CL202", link,
                f"unvouchable link {show_url(link.cited)}: {reason}; link a captured http(s) source "
                "or remove the link (`--fix`)", *at))
        elif cat == "relative" and relative == "error":
            issues.append(LinkIssue(
                "CL202", link,
                f"site-relative link {show_url(link.cited)} is not allowed (`links.relative: error`); "
                "link a captured absolute http(s) source or remove the link (`--fix`)", *at))
        if link.form == "bare" and link.cited != link.href:
            cut = cjk_cut(link.text) or 0
            swallowed = link.text[cut:]
            line, col = link.line, link.col + cut
            issues.append(LinkIssue(
                "CL203", link,
                f"the bare URL {show_url(link.cited)} runs on past {swallowed[:1]!r}: GitHub renders "
                f"{show_url(swallowed)!r} as part of the link; put a space after the URL or write it as "
                f"<{show_url(link.cited)}>", line, col, line, col + 1))
    return issues


def _ungrounded(link: Link, reason: Reason, detail: str, grounding: Allowlist,
                at: tuple[int, int, int, int]) -> LinkIssue:
    """The one issue of a governed ``link`` that ``reason`` (not GROUNDED) says is not grounded;
    ``detail`` is the signed evidence's own words for CL401-CL403."""
    rule = reason.rule
    assert rule is not None
    if reason is Reason.UNCAPTURED:
        near = grounding.near_miss(link.cited)
        msg = (f"ungrounded link {show_url(urls.governed_href(link.cited))}: no captured source has "
               "this identity; capture the source (list it in `sources` and run `citelint "
               "capture`), add it to `links.allow`, or remove the link (`--fix`)")
        if near is not None:
            msg += (f"; near miss: the captured source {show_url(near)} differs only slightly, "
                    "so this URL looks reconstructed: link the captured URL exactly")
        return LinkIssue(rule, link, msg, *at, near_miss=near)
    href = link.href
    if reason is Reason.CORRUPT:
        msg = (f"link to {href}: every capture of this source fails verification, so it grounds nothing; "
               "restore the capture files from version control or capture the source again (`citelint ls` lists "
               "them); --fix leaves this link alone")
    elif reason is Reason.UNTRACKED:
        msg = (f"link to {href}: its captures are neither committed nor staged in git, so this check passes here "
               "and fails in a clean clone; `git add` the captures directory")
    else:  # signed evidence failing: the verifier's words
        msg = f"link to {href}: {detail}"
    return LinkIssue(rule, link, msg, *at)


def govern(markdown: str, evidence: LinkEvidence, *, relative: str = "pass",
           images: bool = False) -> tuple[list[Link], list[LinkIssue]]:
    """Extract every followable link of ``markdown`` and judge it (DESIGN §2.4).

    Returns (links in document order, issues). See :func:`extract` and
    :func:`judge` for the arguments. Raises nothing for any ``str`` input.
    """
    from citelint.links.locate import extract

    links = extract(markdown, images=images)
    return links, judge(links, evidence, relative=relative)


class LinkReport(NamedTuple):
    """What :func:`check` found in one Markdown document.

    ``issues``: the findings in document order (CL201-CL204, CL103, CL109,
    CL401-CL403, and CL105/CL108 of quotations), each with its located
    link. ``links``: followable links of every form; ``governed``:
    those that must be grounded; ``grounded``: governed links that are.
    ``located``: the links whose positions were computed (those in a block
    that has a finding; every link with ``check(every=True)``), in document
    order. ``quoted``: each grounded quotation link whose text was found
    with no blocking issue, as (link, source, capture sha256, the quoted
    passage of that capture), in link order. ``xml``: cmark's XML of the
    document when ``check(xml=…)`` asked for it (of the blocks ``check(keep=…)`` keeps), else "".
    """

    issues: list[LinkIssue]
    links: int
    governed: int
    grounded: int
    located: list[Link]
    quoted: tuple[tuple[Link, str, str, str], ...] = ()
    xml: str = ""


_CJK_SEARCH = re.compile("[" + "".join(sorted(urls.CJK_TERMINATORS)) + "]")
_CJK_MARKS = tuple(sorted(urls.CJK_TERMINATORS))  # ten substring searches beat one character class
_HREF, _RAW_NAME = itemgetter(0), itemgetter(2)
def _unescape(text: str) -> str:
    """HTML character references decoded (``html.unescape``, which loads its
    entity table: only for a page with an ``&`` in an href)."""
    from html import unescape

    return unescape(text)


def _hrefs(entries: list[tuple[str, str, str, str, str]], need: list[int]) -> list[str | None]:
    """The href to decide for each tag of :func:`scan_link_tuples` (of output without comments).

    cmark passes a raw ``<a>`` through as written, so its href is read here
    as locating would read it; None for a raw ``<a>`` that is no link
    (``<a name=…>``, cmark's footnote anchors). None too for a tag to be
    located whatever its href, its index put in ``need``: an image, and an
    anchor whose text holds CJK punctuation (a bare URL there may run on
    past it, CL203).
    """
    from citelint.links.locate import raw_link

    hrefs: list[str | None] = []
    append = hrefs.append
    cjk = _CJK_SEARCH.search
    for i, (href, text, name, open_rest, loose_rest) in enumerate(entries):
        if name:
            if name not in "aA":
                need.append(i)  # an image: locate it
                append(None)
                continue
            rest = open_rest or loose_rest
            raw = raw_link("<" + name + rest, False) if rest else None
            append(None if raw is None else raw[1])
        elif text and not text.isascii() and cjk(text):
            need.append(i)
            append(None)
        else:
            append(_unescape(href) if "&" in href else href)
    return hrefs


def _hrefs_with_raw(out: str, tags: list[re.Match[str]], need: list[int]) -> list[str | None]:
    """:func:`_hrefs` for the tags of :func:`scan_links` (match objects), of any output."""
    from citelint.links.locate import raw_tag

    hrefs: list[str | None] = []
    append = hrefs.append
    cjk = _CJK_SEARCH.search
    for i, m in enumerate(tags):
        href, text = m.group(1, 2)
        if href is None:
            t = m.start()
            if out[t + 1] not in "aA":
                need.append(i)  # an image: locate it
                append(None)
                continue
            raw = raw_tag(out, t, False)
            append(None if raw is None else raw[1])
        elif text is not None and not text.isascii() and cjk(text):
            need.append(i)
            append(None)
        else:
            append(_unescape(href) if "&" in href else href)
    return hrefs


def check(markdown: str, evidence: LinkEvidence, *, relative: str = "pass", images: bool = False,
          every: bool = False, xml: bool | Callable[[str], bool] = False,
          keep: Keep | None = None) -> LinkReport:
    """Judge every followable link of ``markdown``; locate only what has a finding.

    Gives the same issues as :func:`govern` (same rules, positions and
    messages) but decides most links from cmark's output alone: a link whose
    href is grounded, ``mailto:``/``tel:``/fragment, or relative under
    ``relative="pass"`` needs no position (raw HTML ``<a href>`` included:
    cmark passes it through, so its href is read from the output). The
    blocks holding anything else (and every image, and any bare URL that may
    run on past CJK punctuation) are located exactly as :func:`extract` does. This is what
    ``citelint check`` runs. Raises nothing for any ``str`` input.

    With ``evidence.store`` (the capture store), grounded quotation links (an href
    with a text directive, :mod:`citelint.links.quote`) are located too, with
    their titles, and their quoted text verified against the capture (CL204,
    and CL105, CL108, CL202 about the quotation); ``evidence.signed(record)``
    adds the signed-evidence findings of the capture each was verified in.
    Without a store, or on a page
    whose HTML has no ``:~:``, nothing more is done than before.

    With ``every``, every link is located, whatever its verdict (what the
    reader view needs: it marks each link); the issues are the same. With
    ``xml``, :attr:`LinkReport.xml` is cmark's XML of the document, rendered
    from the same parse (what the claims in prose are read from); when ``xml``
    is a function, only if it returns True for cmark's HTML of the document
    (:func:`citelint.links.prose.may_claim`), else "". With ``keep`` too, that XML holds only
    the blocks that ``keep`` keeps (:func:`citelint.links.claimlines.claim_lines`: those
    whose source lines may hold a claim; see
    :func:`~citelint.links.render.render_html_and_xml`), "" when it keeps none.
    """
    # Source positions cost cmark a quarter of its time and most documents
    # need none: render without them first, and again with them only when a
    # link has to be located (the anchors come out identical and in order).
    if xml:
        from citelint.links.render import render_html_and_xml

        out, xml_text = render_html_and_xml(markdown, GITHUB_EXTENSIONS, True, want=None if xml is True else xml,
                                            keep=keep)
    else:
        out, xml_text = render_html(markdown, GITHUB_EXTENSIONS, True, sourcepos=False), ""
    # A bare URL may run on past CJK punctuation (CL203) only if the page has some.
    cjk_page = not out.isascii() and any(mark in out for mark in _CJK_MARKS)
    entries = scan_link_tuples(out, images, cjk_page)
    need: list[int] = []  # tags to locate, whatever their href
    raw = any(map(_RAW_NAME, entries))
    if not raw and not cjk_page:
        # cmark's own anchors only (the usual page): every href as it stands
        hrefs = [_unescape(href) if "&" in href else href for href in map(_HREF, entries)]
    elif not raw or "<!--" not in out:
        hrefs = _hrefs(entries, need)
    else:
        # a raw tag's reading may run into a comment: read the tags from the output
        hrefs = _hrefs_with_raw(out, scan_links(out, images), need)
    allowlist, store = evidence.grounding, evidence.store
    grounded, others = allowlist.decide_all(hrefs)
    passed = 0  # links that pass without being grounded
    relative_passes = relative == "pass"
    for i, category in others:
        if category == "pass" or (category == "relative" and relative_passes):
            passed += 1
        else:
            need.append(i)
    # Decoded hrefs too: a raw <a href> may spell the directive with character
    # references (&#58;~&#58;), which cmark's output keeps as written.
    quoting = store is not None and (":~:" in out or any(h is not None and ":~:" in h for h in hrefs))
    titles: dict[int, str | None] = {}  # id(link) -> title, for quotation links
    if quoting:
        from citelint.links.quote import is_quotation, link_title

        # A grounded quotation needs its title and the capture: locate it too.
        ungrounded = {i for i, _ in others}
        for i, href in enumerate(hrefs):
            if href is not None and ":~:" in href and i not in ungrounded and is_quotation(href):
                need.append(i)
                grounded -= 1
    need.sort()
    links, governed = grounded + passed, grounded
    if every:
        # Every tag located: the links are counted as they are located.
        links = governed = grounded = 0
        need = list(range(len(entries)))
    located: list[Link] = []
    if need:
        # Locating loads only for a page with something to locate: a clean page never pays for it.
        from citelint.links.locate import locate_all
        from citelint.links.source import SourceDocument

        out = render_html(markdown, GITHUB_EXTENSIONS, True)
        positioned = scan_links(out, images)
        if len(positioned) != len(entries):
            # Source positions change no anchor, so this does not happen; if
            # it ever did, the safe answer is to locate every link.
            links = governed = grounded = 0
            need = list(range(len(positioned)))
        tags = positioned
        doc = SourceDocument(markdown)
        footnote_from = footnotes_start(out, True)
        wanted = set(need)
        keys: dict[int, int] = {}

        def block_key(j: int) -> int:
            key = keys.get(j)
            if key is None:
                key = keys[j] = out.rfind(SOURCEPOS_KEY, 0, tags[j].start())
            return key

        done = -1
        for i in need:
            if i <= done:
                continue
            # the run of tags sharing this block, so the search cursor is exact
            key = block_key(i)
            first = i
            while first > done + 1 and block_key(first - 1) == key:
                first -= 1
            last = i
            while last + 1 < len(tags) and block_key(last + 1) == key:
                last += 1
            for j, link in locate_all(out, doc, tags[first:last + 1], images, footnote_from):
                if first + j in wanted:
                    located.append(link)
                    if quoting and ":~:" in link.href:
                        titles[id(link)] = link_title(out, tags[first + j])
            done = last
    issues = judge(located, evidence, relative=relative)
    bad = {id(issue.link) for issue in issues if RULES[issue.rule].blocking}
    quoted: tuple[tuple[Link, str, str, str], ...] = ()
    if quoting and titles:
        assert store is not None
        issues, quoted = _with_quotations(issues, located, titles, allowlist, store, evidence.signed)
    for link in located:
        links += 1
        if link.category == "governed":
            governed += 1
            if id(link) not in bad:
                grounded += 1
    return LinkReport(issues, links, governed, grounded, located, quoted, xml_text)


def _with_quotations(issues: list[LinkIssue], located: list[Link], titles: dict[int, str | None],
                     allowlist: Allowlist, store: Store,
                     signature_issues: Callable[[CaptureRecord], list[tuple[str, str]]] | None = None
                     ) -> tuple[list[LinkIssue], tuple[tuple[Link, str, str, str], ...]]:
    """``issues`` with those of each grounded quotation among ``located`` added, in link order,
    and the quotations accepted (:attr:`LinkReport.quoted`).

    ``titles`` maps ``id(link)`` to the title of each located link whose
    href has ``:~:``. An ungrounded quotation is CL201 (``judge``) and
    nothing more: there is no capture to check it against.
    """
    from citelint.links.quote import QuotationChecker

    checker = QuotationChecker(allowlist, store, signature_issues)
    added = False
    for link in located:
        if id(link) in titles and link.kind != "image" and link.category == "governed" \
                and allowlist.decide(link.cited)[1]:
            found = checker.check(link, titles[id(link)])
            issues = issues + found if found else issues
            added = added or bool(found)
    if added:
        order = {id(link): k for k, link in enumerate(located)}
        issues.sort(key=lambda issue: order[id(issue.link)])  # stable: a link's own issues keep their order
    return issues, tuple(checker.accepted)
