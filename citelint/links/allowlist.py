"""What a link may point at: :class:`Allowlist` (captured and allowed identities, near misses).

Canonical identity comes from :mod:`citelint.urls`; allow prefixes keep
their trailing slash, and near misses are found by host, query and a
bounded edit distance of the path (DESIGN §2.4).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import overload
from urllib.parse import unquote

from citelint import urls

# Sources are checked for a canonical spelling this many at a time, in one
# regular-expression call: a chunk with another spelling is then gone through
# source by source, so one odd source costs at most a chunk.
_CHUNK = 16


class Allowlist:
    """The identities a link may point at (DESIGN §2.4).

    ``captured_sources``: approved source URLs that have at least one capture,
    as written in the config. ``allow``: the config's ``links.allow`` entries,
    each a URL (compared by identity) or a prefix ending in ``*`` (compared
    with the identity of the link; ``https://x.org/*`` allows every page of
    that host, never ``x.org.evil``). Entries that are not http(s) URLs are
    ignored; :attr:`rejected` lists them. ``ignore_query_params``: query
    parameter names (``utm_source``) removed from the identities on both sides
    before they are compared (``links.ignore_query_params``, off by default: a
    loosening, since ``?utm_source=x`` may in principle serve another page).

    ``captured(source)``, when given, says which of ``captured_sources`` count:
    they are then candidates, and a candidate is asked about only when a link
    has its identity (or is near it, or the size is asked), so a check of a few
    links verifies the captures of those sources, not of every approved one
    (:func:`citelint.check.grounding.build_allowlist`). Every answer is the one
    an allowlist of just the candidates ``captured`` says yes to would give;
    ``captured`` should remember its answers, since it may be asked twice.
    Building one never raises.
    """

    def __init__(self, captured_sources: Iterable[str], allow: Iterable[str] = (),
                 ignore_query_params: Iterable[str] = (), captured: Callable[[str], bool] | None = None) -> None:
        self._ignore = frozenset(ignore_query_params)
        self._captured = captured
        # With ``captured``: identity -> the candidates having it, as (config position, 0 for the
        # source's identity or 1 for its HTML-unescaped one, source), in config order.
        self._candidates: dict[str, list[tuple[int, int, str]]] = {}
        self._candidate_sources: list[str] = []  # the candidates with an identity, in config order
        self._ids: set[str] = set()
        # Strings whose identity is known to be allowed: a link written exactly
        # as a source was (the usual case) is decided without parsing it.
        self._exact: set[str] = set()
        self._prefixes: list[str] = []
        self._sources: list[tuple[str, str]] = []  # (identity, source as written)
        self._source_of: dict[str, str] | None = None  # _sources as a mapping, built when first asked
        # Sources in config order, their identities not yet in _ids/_sources:
        # a canonical spelling as a str, any other as (source, identity,
        # identity of the HTML-unescaped source). Most documents link only
        # what they captured, exactly as written, and never need the identities.
        self._pending: list[str | tuple[str, str | None, str | None]] = []
        # near-miss index, built on the first near miss asked for: host
        # without a leading "www." -> [(authority, path, query, source)]
        self._by_host: dict[str, dict[int, list[tuple[str, str, str | None, str]]]] | None = None
        self.rejected: list[str] = []
        exact, pending = self._exact, self._pending
        canonical = urls.CANONICAL.fullmatch
        captured_sources = list(captured_sources)
        for at in range(0, len(captured_sources), _CHUNK):
            chunk = captured_sources[at:at + _CHUNK]
            if urls.all_canonical(chunk):
                # all spelled canonically (the usual case): no loop in Python
                exact.update(chunk)
                pending.extend(chunk)
                continue
            for source in chunk:
                if canonical(source) is not None:
                    exact.add(source)
                    pending.append(source)
                    continue
                category, ident = urls.analyse(source)
                decoded = urls.source_identity(source)
                if ident is None and decoded is None:
                    self.rejected.append(source)
                    continue
                if category == "governed":
                    exact.add(source)
                pending.append((source, ident, decoded))
        for entry in allow:
            if entry.endswith("*"):
                prefix = _canonical_prefix(entry[:-1])
                if prefix is None:
                    self.rejected.append(entry)
                else:
                    self._prefixes.append(prefix)
            else:
                found = {i for i in (urls.identity(entry), urls.source_identity(entry)) if i is not None}
                if not found:
                    self.rejected.append(entry)
                self._ids.update(self._without_ignored(i) for i in found)

    def _resolve_pending(self) -> None:
        """Put the identities of the pending sources in ``_ids`` and ``_sources``, in config order
        (with ``captured``: in ``_candidates``; ``_ids`` then holds the allowed identities alone)."""
        ids, sources, quick = self._ids, self._sources, urls.quick_identity
        html_escaped = urls.HTML_ESCAPED.search
        seen = {ident for ident, _ in sources}
        candidates = self._candidates if self._captured is not None else None
        for position, entry in enumerate(self._pending):
            if isinstance(entry, str):
                source, ident = entry, quick(entry)
                # the source as its HTML escapes read (seed 002), when it has any
                decoded = ident if "&" not in source or html_escaped(source) is None \
                    else urls.source_identity(source)
            else:
                source, ident, decoded = entry
            if self._ignore:
                ident, decoded = self._without_ignored(ident), self._without_ignored(decoded)
            if candidates is not None:
                if ident is not None or decoded is not None:
                    self._candidate_sources.append(source)
                for slot, each in enumerate((ident, decoded)):
                    if each is not None and not (slot and each == ident):
                        candidates.setdefault(each, []).append((position, slot, source))
                continue
            for each in (ident, decoded):
                if each is not None and each not in seen:
                    seen.add(each)
                    ids.add(each)
                    sources.append((each, source))
        self._pending = []

    @overload
    def _without_ignored(self, ident: str) -> str: ...
    @overload
    def _without_ignored(self, ident: str | None) -> str | None: ...

    def _without_ignored(self, ident: str | None) -> str | None:
        """``ident`` without the query parameters named in ``ignore_query_params``
        (by name as written or percent-decoded), and without a ``?`` left empty."""
        if ident is None or not self._ignore or "?" not in ident:
            return ident
        head, _, query = ident.partition("?")
        kept = [p for p in query.split("&")
                if (name := p.partition("=")[0]) not in self._ignore and unquote(name) not in self._ignore]
        return head + "?" + "&".join(kept) if kept else head

    def __len__(self) -> int:
        """Number of distinct identities plus prefixes (with ``captured``, every candidate is asked)."""
        if self._pending:
            self._resolve_pending()
        counted = sum(1 for ident in self._candidates
                      if ident not in self._ids and self._first_captured(ident) is not None)
        return len(self._ids) + counted + len(self._prefixes)

    def is_empty(self) -> bool:
        """``len(self) == 0``, asking ``captured`` only until a candidate counts (not at
        all when ``links.allow`` gives an identity or a prefix)."""
        if self._ids or self._prefixes:
            return False
        if self._captured is None:
            return len(self) == 0
        if self._pending:
            self._resolve_pending()
        return not any(map(self._captured, self._candidate_sources))

    def _first_captured(self, ident: str) -> tuple[int, int, str] | None:
        """With ``captured``: the first candidate in config order having ``ident`` that counts."""
        captured = self._captured
        if captured is None:
            return None
        return next((c for c in self._candidates.get(ident, ()) if captured(c[2])), None)

    def _has(self, ident: str) -> bool:
        """True when ``ident`` is an allowed identity or a (counted) source's; prefixes aside."""
        return ident in self._ids or self._first_captured(ident) is not None

    def identity_of(self, href: str) -> str | None:
        """Identity of a governed ``href`` (``www.``/``//`` spellings resolved), or None. Never raises."""
        return urls.analyse(href)[1]

    def decide(self, href: str) -> tuple[str, bool]:
        """How ``href`` is governed and whether it is grounded: the one grounding decision.

        ``href`` is a destination as the renderer resolved it. Returns
        ``(category, grounded)``: ``category`` as :func:`citelint.urls.classify`
        gives it; ``grounded`` is True when the href is governed and its
        identity is captured or allowed, False otherwise (always for an
        unvouchable href). Never raises.
        """
        if href in self._exact and (self._captured is None or self._captured(href)):
            # analyse() is a pure function of the string: the same string as a
            # captured source has that source's (allowed) identity, so the usual
            # link, copied exactly, is decided without parsing it.
            return "governed", True
        category, ident = urls.analyse(href)
        if ident is None:
            return category, False
        if self._pending:
            self._resolve_pending()
        if self._ignore:
            ident = self._without_ignored(ident)
        return category, self._has(ident) or any(ident.startswith(p) for p in self._prefixes)

    def decide_all(self, hrefs: list[str | None]) -> tuple[int, list[tuple[int, str]]]:
        """:meth:`decide` for many hrefs at once: the number grounded, and the others.

        ``hrefs`` are destinations as for :meth:`decide`; ``None`` entries are
        skipped. Returns ``(grounded, others)``: how many hrefs ``decide``
        finds grounded, and ``(index, category)`` for every other non-None
        href, in order. The usual href, a captured source copied exactly,
        is settled by the set lookup :meth:`decide` starts with; every other
        href is decided by :meth:`decide` itself. Never raises.
        """
        exact, captured = self._exact, self._captured
        misses = [i for i, href in enumerate(hrefs) if href not in exact] if captured is None else \
            [i for i, href in enumerate(hrefs) if href not in exact or not captured(href)]
        grounded = len(hrefs) - len(misses)
        others: list[tuple[int, str]] = []
        decide = self.decide
        for i in misses:
            href = hrefs[i]
            if href is None:
                continue
            category, ok = decide(href)
            if ok:
                grounded += 1
            else:
                others.append((i, category))
        return grounded, others

    def candidates_of(self, href: str) -> list[str]:
        """With ``captured``: every candidate source having ``href``'s identity, counted or not,
        in config order ([] without ``captured``, or for an href with no identity). Never raises."""
        ident = self._without_ignored(urls.analyse(href)[1])
        if ident is None or self._captured is None:
            return []
        if self._pending:
            self._resolve_pending()
        found: list[str] = []
        for _, _, source in self._candidates.get(ident, ()):
            if source not in found:
                found.append(source)
        return found

    def grounded(self, href: str) -> bool:
        """True when ``href``'s identity is captured or allowed; False if unvouchable. Never raises."""
        return self.decide(href)[1]

    def captured_source(self, href: str) -> str | None:
        """The captured source, as written in the config, whose identity ``href`` has; None when
        none has it (an href allowed only by ``links.allow``, or not grounded). The first such
        source in config order when several spellings share the identity. Never raises."""
        if href in self._exact and (self._captured is None or self._captured(href)):
            return href
        ident = self._without_ignored(urls.analyse(href)[1])
        if ident is None:
            return None
        if self._pending:
            self._resolve_pending()
        if self._captured is not None:
            first = self._first_captured(ident)
            return None if first is None else first[2]
        if self._source_of is None or len(self._source_of) != len(self._sources):
            # identity -> its first source: _sources holds each identity once, in config order
            self._source_of = dict(self._sources)
        return self._source_of.get(ident)

    def near_miss(self, href: str) -> str | None:
        """The captured source an ungrounded ``href`` most resembles, or None.

        A near miss has the same host and path but for a leading ``www.``; or
        the same host and path with another query; or the same host and a
        path within two edits (DESIGN §2.4). The captured source string is
        returned as written in the config. Never raises.
        """
        ident = self.identity_of(href)
        if self._pending:
            self._resolve_pending()
        if ident is None or self._has(ident):
            return None
        if self._by_host is None:
            # host without "www." -> path length -> sources (with ``captured``: the
            # candidates' identities): every kind of near miss has a path within two
            # edits, so within two characters' length. Built whole before it is
            # published: readers in other threads (the Python API) see no index or all of it.
            index: dict[str, dict[int, list[tuple[str, str, str | None, str]]]] = {}
            for c_ident, source in self._sources if self._captured is None else ((i, i) for i in self._candidates):
                c_auth, c_path, c_query = _split_identity(c_ident)
                by_length = index.setdefault(_strip_www(c_auth), {})
                by_length.setdefault(len(c_path), []).append((c_auth, c_path, c_query, source))
            self._by_host = index
        authority, path, query = _split_identity(ident)
        best: tuple[int, str] | None = None
        by_length = self._by_host.get(_strip_www(authority), {})
        candidates = [c for n in range(len(path) - 2, len(path) + 3) for c in self._counted(by_length.get(n, ()))]
        for c_auth, c_path, _c_query, source in candidates:
            if c_auth != authority:
                rank = 0 if c_path == path else None
            elif c_path == path:
                rank = 1  # only the query differs
            else:
                dist = edit_distance_at_most(c_path, path, 2)
                rank = None if dist is None else 1 + dist
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, source)
        return None if best is None else best[1]

    def _counted(self, entries: Iterable[tuple[str, str, str | None, str]]
                 ) -> Iterable[tuple[str, str, str | None, str]]:
        """Near-miss index entries as an allowlist of the counted sources alone holds them: with
        ``captured``, each identity with the first of its candidates that counts (none: left
        out), in the order of those candidates in the config; else ``entries`` as they are."""
        if self._captured is None:
            return entries
        found = []
        for c_auth, c_path, c_query, c_ident in entries:
            first = self._first_captured(c_ident)
            if first is not None:
                found.append((first[0], first[1], (c_auth, c_path, c_query, first[2])))
        return [entry for _, _, entry in sorted(found)]


def _split_identity(ident: str) -> tuple[str, str, str | None]:
    rest = ident[len("https://"):]
    slash = rest.find("/")
    authority, rest = rest[:slash], rest[slash:]
    path, qmark, query = rest.partition("?")
    return authority, path, (query if qmark else None)


def _strip_www(authority: str) -> str:
    return authority[4:] if authority.startswith("www.") else authority


def _canonical_prefix(prefix: str) -> str | None:
    """Identity-normalise an allow prefix but keep its trailing slash.

    Dropping it (as identity does) would let ``https://x.org/docs/*`` allow
    ``https://x.org/docs-old``.
    """
    ident = urls.identity(prefix)
    if ident is None:
        return None
    path = _split_identity(ident)[1]
    if prefix.endswith("/") and not ident.endswith("/") and path != "/":
        ident += "/"
    return ident


def edit_distance_at_most(a: str, b: str, limit: int) -> int | None:
    """Levenshtein distance of ``a`` and ``b`` if it is ``<= limit``, else None.

    For the small limits near misses use (two edits), branching on the first
    difference (substitute, delete or insert, each costing one edit) visits
    at most 3**limit pairs, and a common prefix is skipped without cost; a
    link checked against thousands of captured paths on one host stays cheap.
    """
    if abs(len(a) - len(b)) > limit:
        return None
    if a == b:
        return 0
    if limit == 0:
        return None
    i, n = 0, min(len(a), len(b))
    while i < n and a[i] == b[i]:
        i += 1
    a, b = a[i:], b[i:]
    best = None
    for x, y in ((a[1:], b[1:]), (a[1:], b), (a, b[1:])):
        d = edit_distance_at_most(x, y, limit - 1 if best is None else min(limit, best) - 1)
        if d is not None and (best is None or d + 1 < best):
            best = d + 1
    return best
