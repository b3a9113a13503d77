"""``--fix``: degrade ungrounded and unvouchable links to their visible text (DESIGN §2.4)."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence

from cmarkgfm.cmark import Options

from citelint import urls
from citelint.escape import code_span
from citelint.links.judge import show_url
from citelint.links.link import Link, LinkIssue, cjk_cut
from citelint.links.locate import extract
from citelint.links.render import GITHUB_EXTENSIONS, cmark_to_html
from citelint.model import RULES

_CLOSE_A = re.compile(r"</[aA]\s*>")
_OPEN_A = re.compile(r"<[aA][\s>]")


def degrade_ops(src: str, link: Link) -> list[tuple[int, int, str]] | None:
    """Edits (start, end, replacement) that turn ``link`` into its visible text."""
    if not link.located:
        return None
    form = link.form
    if form in ("inline", "reference", "image") and link.text_span is not None:
        ts, te = link.text_span
        return [(link.start, ts, ""), (te, link.end, "")]
    if form == "autolink":
        inner = src[link.start + 1:link.end - 1]
        return [(link.start, link.end, code_span(inner, src[link.start - 1:link.start], src[link.end:link.end + 1]))]
    if form == "bare":
        visible = src[link.start:link.end]
        cut = cjk_cut(visible)
        if cut is None:
            cut = len(visible)
        end = link.start + cut
        return [(link.start, end, code_span(visible[:cut], src[link.start - 1:link.start], src[end:end + 1]))]
    if form == "html":
        ops = [(link.start, link.end, "")]
        close = _CLOSE_A.search(src, link.end, min(len(src), link.end + 20000))
        if close is not None:
            opening = _OPEN_A.search(src, link.end, close.start())
            if opening is None:
                ops.append((close.start(), close.end(), ""))
        return ops
    return None


def apply_ops(src: str, ops: list[tuple[int, int, str]]) -> str:
    parts = []
    last = 0
    for start, end, rep in sorted(ops):
        parts.append(src[last:start])
        parts.append(rep)
        last = end
    parts.append(src[last:])
    return "".join(parts)


def _link_counter(markdown: str, images: bool) -> Counter[str]:
    return Counter(urls.href_escape(link.href) for link in extract(markdown, images=images))


_LINK_MARKUP = re.compile(r"</?a\b[^>]*>|</?code>|</?A\b[^>]*>")
_IMG_ALT = re.compile(r'<img src="[^"]*" alt="([^"]*)"(?: title="[^"]*")? />')


def _visible(markdown: str) -> str:
    """What a reader sees, minus link and code markup: a fix must leave it unchanged."""
    out = cmark_to_html(markdown, Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES, GITHUB_EXTENSIONS)
    return _LINK_MARKUP.sub("", _IMG_ALT.sub(r"\1", out))


#: Verifying renders allowed when the edits of one --fix interact (each is a
#: render of the whole document).
_FIX_ATTEMPTS = 40


def _clashes(taken: list[tuple[int, int]], s: int, e: int) -> bool:
    """True when the edit of [s, e) overlaps one of the sorted, disjoint spans ``taken`` (or
    is an insertion at the point of an insertion there). Looks at its neighbours only, so
    planning the edits of a page with thousands of links is not quadratic."""
    k = bisect.bisect_left(taken, (s, e))
    return any(s < te and ts < e or s == e == ts for ts, te in taken[max(0, k - 1):k + 2])


def fix(markdown: str, issues: Sequence[LinkIssue]) -> tuple[str, list[LinkIssue]]:
    """Degrade the links of CL201/CL202 ``issues`` to their visible text (DESIGN §2.4).

    ``issues`` come from :func:`govern` or :func:`check` on this same
    ``markdown``; an issue marked not ``fixable`` (a grounded quotation) is
    left alone. Inline and
    reference links keep their text (definitions are left); images keep their
    alt text; autolinks and bare URLs become inline code so no renderer
    re-links them; a raw ``<a …>`` loses its tag and matching ``</a>``.
    Everything else stays byte-identical. The result is re-rendered and
    checked: a link the edit would newly create (text that reads as a URL)
    is degraded too, and an edit that would change any other link is not
    made. Returns (new text, the issues whose links were removed, in order).
    Running ``fix`` again on the result with its own issues changes nothing.
    Raises nothing.
    """
    wanted: dict[tuple[int, int], LinkIssue] = {}
    for issue in issues:
        if RULES[issue.rule].fixable and issue.fixable and issue.link.located:
            wanted.setdefault((issue.link.start, issue.link.end), issue)
    if not wanted:
        return markdown, []
    images = any(i.link.form == "image" for i in wanted.values())
    planned: list[tuple[LinkIssue, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []  # sorted, none overlapping: only an op's neighbours can clash
    for key in sorted(wanted):
        issue = wanted[key]
        ops = degrade_ops(markdown, issue.link)
        if not ops:
            continue
        if any(_clashes(taken, s, e) for s, e, _ in ops):
            continue
        for s, e, _ in ops:
            bisect.insort(taken, (s, e))
        planned.append((issue, ops))
    if not planned:
        return markdown, []
    before = _link_counter(markdown, images)
    visible_before = _visible(markdown)

    def attempt(chosen: list[tuple[LinkIssue, list[tuple[int, int, str]]]]) -> tuple[str, list[LinkIssue]] | None:
        text = apply_ops(markdown, [op for _, ops in chosen for op in ops])
        removed = [issue for issue, _ in chosen]
        expected = before - Counter(urls.href_escape(i.link.href) for i in removed)
        for _ in range(8):
            found = extract(text, images=images)
            now = Counter(urls.href_escape(link.href) for link in found)
            if now == expected:
                # and nothing but link markup changed: an edit in the wrong
                # place (say, inside a code span that spells the same link)
                # would change what the reader sees
                return (text, removed) if _visible(text) == visible_before else None
            if expected - now:
                return None  # an edit broke a link it should have left alone
            # the degraded text reads as a new link (e.g. "[www.x.org](…)"):
            # degrade the new links as well, so the result is stable
            extra = now - expected
            ops = []
            for link in found:
                key = urls.href_escape(link.href)
                if extra[key] > 0:
                    extra[key] -= 1
                    new_ops = degrade_ops(text, link)
                    if not new_ops:
                        return None
                    ops.extend(new_ops)
                    removed.append(LinkIssue(
                        "CL201", link,
                        f"link {show_url(link.href)} appeared in the text of a removed link and was removed too",
                        link.line, link.col, link.end_line, link.end_col))
            text = apply_ops(text, ops)
        return None

    result = attempt(planned)
    if result is not None:
        return result
    # Something interacted. Each attempt renders the whole document, so trying
    # the edits one at a time would cost a render per link (quadratic in the
    # document); halving instead isolates the edits that cannot be made in
    # a number of renders that grows with their count, not the document's
    # links, and a fixed budget bounds even a document where many fail. An
    # edit not verified within it is not made: its finding stays.
    budget = [_FIX_ATTEMPTS]

    def settle(items: list[tuple[LinkIssue, list[tuple[int, int, str]]]]
               ) -> list[tuple[LinkIssue, list[tuple[int, int, str]]]]:
        if not items or budget[0] <= 0:
            return []
        budget[0] -= 1
        if attempt(items) is not None:
            return items
        if len(items) == 1:
            return []
        half = len(items) // 2
        left, right = settle(items[:half]), settle(items[half:])
        if left and right and budget[0] > 0:
            budget[0] -= 1
            if attempt(left + right) is not None:
                return left + right
        return left if len(left) >= len(right) else right

    kept = settle(planned)
    result = attempt(kept) if kept else None
    return result if result is not None else (markdown, [])
