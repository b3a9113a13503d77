"""Links in model output held to what the model was given: :class:`Allowlist`
and :func:`enforce_links`, with no capture store at all.

The same link governance as ``citelint check`` (every link form cmark-gfm
renders, WHATWG URL identity, DESIGN §2.4) and the same degrading as
``check --fix`` (:func:`citelint.links.fix`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citelint.errors import UsageError

if TYPE_CHECKING:
    from citelint.links.grounds import LinkEvidence

@dataclass(frozen=True)
class RemovedLink:
    """A link :func:`~citelint.enforce_links` degraded to its visible text:
    ``href`` as written (resolved by cmark-gfm), where its destination stood
    (``line``, ``column``: 1-based, code points, in the text given), the
    ``rule`` it broke (``CL201`` ungrounded, ``CL202`` unvouchable) and the
    ``message`` saying why."""

    href: str
    line: int
    column: int
    rule: str
    message: str


@dataclass(frozen=True)
class Enforced:
    """What :func:`~citelint.enforce_links` made of a Markdown text: ``text``
    with every ungrounded link degraded to its visible text (everything else
    byte for byte as given), and ``removed``, the links taken out, in order."""

    text: str
    removed: tuple[RemovedLink, ...] = ()

    @property
    def changed(self) -> bool:
        """True when a link was removed."""
        return bool(self.removed)


#: ``relative`` settings: what a relative link (``docs/a.md``) is (``links.relative`` of the config).
RELATIVE = ("pass", "error")


class Allowlist:
    """The URLs a link may point at, for :func:`enforce_links`.

    ``sources``: URLs a link may name (compared by WHATWG identity, so
    ``https://EXAMPLE.org/a`` and ``https://example.org/a`` are one);
    ``allow``: more URLs, or prefixes ending in ``*`` (``https://x.org/*``
    allows every page of that host); ``ignore_query_params``: query
    parameter names (``utm_source``) removed from both sides before they
    are compared. Entries that are not http(s) URLs ground nothing and are
    listed in :attr:`rejected`. Immutable; safe to share between threads.

    Raises:
        UsageError: an argument is a single string instead of a collection of strings.
    """

    __slots__ = ("_allow", "_ignore", "_links", "_sources")

    def __init__(self, sources: Iterable[str] = (), *, allow: Iterable[str] = (),
                 ignore_query_params: Iterable[str] = ()) -> None:
        from citelint.links.allowlist import Allowlist as Identities

        self._sources = _strings(sources, "sources")
        self._allow = _strings(allow, "allow")
        self._ignore = _strings(ignore_query_params, "ignore_query_params")
        self._links = Identities(self._sources, self._allow, self._ignore)
        # Identities are resolved on first use; do it now, so readers in
        # several threads never race to fill them in.
        self._links.grounded("https://example.invalid/")

    @classmethod
    def from_inputs(cls, inputs: Iterable[object], *, allow: Iterable[str] = (),
                    ignore_query_params: Iterable[str] = ()) -> Allowlist:
        """The allowlist of exactly what a model received: every URL a link of
        any form (inline, reference, autolink, bare, raw HTML) names in the
        texts of ``inputs`` (the prompt, each document), read as Markdown by
        cmark-gfm. An input is a ``str``, or a mapping or list (a request
        body, a content block) whose string values are read the same way,
        keys excluded. ``allow`` and ``ignore_query_params`` as for the
        constructor.

        Raises:
            UsageError: an input is neither a string, a mapping nor a list.
        """
        from citelint.links import extract

        found: dict[str, None] = {}
        for text in _texts(inputs):
            if "://" in text or "www." in text:
                for link in extract(text):
                    found.setdefault(link.cited or link.href, None)
        return cls(found, allow=allow, ignore_query_params=ignore_query_params)

    @property
    def sources(self) -> tuple[str, ...]:
        """The URLs given (or found in the inputs), in order, without duplicates."""
        return self._sources

    @property
    def rejected(self) -> tuple[str, ...]:
        """Entries of ``sources`` or ``allow`` that are not http(s) URLs (they ground nothing)."""
        return tuple(self._links.rejected)

    def allows(self, url: str) -> bool:
        """True when a link to ``url`` is grounded by this allowlist."""
        return self._links.grounded(url)

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.allows(url)

    def __repr__(self) -> str:
        return f"Allowlist({len(self._sources)} sources, {len(self._allow)} allowed)"

    def _evidence(self) -> LinkEvidence:
        """What the link rules judge against: this allowlist and no capture store."""
        from citelint.links.grounds import LinkEvidence

        return LinkEvidence(self._links)


def _strings(values: Iterable[str], name: str) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)):
        raise UsageError(f"{name} takes a list of strings, not one string")
    out = tuple(dict.fromkeys(values))
    bad = next((v for v in out if not isinstance(v, str)), None)
    if bad is not None:
        raise UsageError(f"{name} takes strings, got {type(bad).__name__}")
    return out


def _texts(inputs: Iterable[object]) -> Iterator[str]:
    """Every string in ``inputs``, depth first; mapping keys are not texts."""
    if isinstance(inputs, (str, bytes)):
        raise UsageError("Allowlist.from_inputs takes a list of inputs (the prompt, each document), not one string")
    stack = list(inputs)[::-1]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            stack.extend(list(item.values())[::-1])
        elif isinstance(item, (list, tuple)):
            stack.extend(item[::-1])
        elif item is None or isinstance(item, (bool, int, float)):
            continue
        else:
            raise UsageError(f"Allowlist.from_inputs: an input is a {type(item).__name__}; give texts (str), "
                             "or mappings and lists holding them")


def enforce_links(markdown: str, allowlist: Allowlist, *, relative: str = "pass", images: bool = False) -> Enforced:
    """``markdown`` with every link that ``allowlist`` does not ground
    degraded to its visible text, as ``citelint check --fix`` does: inline
    and reference links keep their text, autolinks and bare URLs become
    inline code, a raw ``<a>`` loses its tags; everything else stays byte
    for byte. Links of every form are governed (``images``: images too),
    ``mailto:``/``tel:`` and fragments pass, and a relative link passes
    unless ``relative`` is ``"error"``. A link whose destination is not a
    URL citelint can vouch for (``javascript:``, malformed) is removed too.

    Returns:
        :class:`~citelint.Enforced`: the new text and the removed links.

    Raises:
        UsageError: ``markdown`` is not a str, or ``relative`` is not ``pass`` or ``error``.
    """
    from citelint.links.judge import show_url

    enforced = enforce_with(markdown, allowlist._evidence(), relative=relative, images=images)
    # The link rules' own words point at captures and the config, which an allowlist has neither of.
    return Enforced(enforced.text, tuple(
        RemovedLink(r.href, r.line, r.column, r.rule, f"ungrounded link {show_url(r.href)}: not among the allowlist's "
                                                      "sources (what the model was given) nor allowed")
        if r.rule == "CL201" else r for r in enforced.removed))


def enforce_with(markdown: str, evidence: LinkEvidence, *, relative: str = "pass", images: bool = False) -> Enforced:
    """:func:`enforce_links` against ``evidence`` (a project's captures, or an allowlist's)."""
    if not isinstance(markdown, str):
        raise UsageError(f"enforce_links takes the Markdown as a str, got {type(markdown).__name__}")
    if relative not in RELATIVE:
        raise UsageError(f"relative is one of {', '.join(RELATIVE)}, got {relative!r}")
    from citelint import links
    from citelint.model import RULES

    report = links.check(markdown, evidence, relative=relative, images=images)
    fixable = [issue for issue in report.issues if RULES[issue.rule].fixable]
    if not fixable:
        return Enforced(markdown)
    text, removed = links.fix(markdown, fixable)
    return Enforced(text, tuple(RemovedLink(i.link.href, i.line, i.col, i.rule, i.message) for i in removed))
