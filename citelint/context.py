"""The permissible sources for a model's prompt (``citelint context``).

A model cites correctly only when the sources it may cite are in its prompt,
as an explicit list labelled as the only ones. This module chooses them from
the store and writes them for the prompt:

- :func:`select` takes committed evidence only: each capture verifies (its
  digest, source and text agree: :meth:`citelint.store.captures.Store.lookup`),
  git has it tracked or staged (as CL109 asks, inside a git work tree), and,
  with ``evidence.allowed_signers``, its signatures hold (CL401-CL403). Only
  approved sources are given: a link to any other fails ``check`` (CL201).
- :func:`bound` keeps the sources that fit in a character budget, dropping
  whole sources (never cutting a text: a cut text is not the capture).
- :func:`build` runs the three, as ``citelint context`` and
  ``Project.context`` both do.
- :func:`render` writes them as Anthropic ``document`` blocks (title: the
  source URL; context: ``capture:<sha256>``, read back by
  :mod:`citelint.imports.documents`, so the import of the response needs no
  source map), OpenAI input text parts, or a numbered text or Markdown list.

Read-only: nothing here writes a file or opens a connection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from citelint.config import Config
from citelint.errors import UsageError
from citelint.git.tracked import captures_git_has
from citelint.imports.documents import capture_context
from citelint.store.captures import CaptureRecord, Store, sha256_hex, time_key

if TYPE_CHECKING:
    from citelint.evidence.verify import EvidenceVerifier

#: The formats :func:`render` writes, in ``--format``'s order.
FORMATS = ("anthropic", "openai", "text", "markdown")

#: The instruction every format carries (Anthropic's carries it in the citations it enables).
INSTRUCTION = ("These are the only permissible sources: cite nothing else. Cite a source by its URL exactly "
               "as listed, and quote only text that occurs in it word for word.")


@dataclass(frozen=True)
class ContextSource:
    """One source for the prompt: its URL and the capture records given for it, in order
    (one revision; several when they are one batch's documents of this source)."""

    source: str
    records: tuple[CaptureRecord, ...]

    @property
    def chars(self) -> int:
        """The length of its texts, in code points (what ``--max-chars`` counts)."""
        return sum(len(r.text) for r in self.records)


@dataclass(frozen=True)
class Selection:
    """What :func:`select` chose: ``sources`` in order, and ``notes``, one line each about an
    approved source left out (no usable capture) or a newer revision not used."""

    sources: list[ContextSource]
    notes: list[str]


class CommittedCaptures:
    """Which verified captures of a project are committed evidence, as ``check`` would
    trust them: tracked or staged by git (inside a work tree; outside one, every verified
    capture) and, with ``evidence.allowed_signers``, signed as the config requires.
    ``config`` is the project's; ``cwd`` where paths in messages are relative to.

    Raises:
        UsageError: the allowed-signers file cannot be read (SignersError).
    """

    def __init__(self, config: Config, cwd: Path):
        self.store = Store(config.captures_dir)
        self.git = captures_git_has(config.captures_dir)
        self.evidence: EvidenceVerifier | None = None
        if config.evidence.allowed_signers is not None:  # the signature modules load only when configured
            from citelint.evidence.verify import verifier_for

            self.evidence = verifier_for(config, cwd)

    def problem(self, record: CaptureRecord) -> str | None:
        """Why the verified ``record`` is not committed evidence, or None when it is."""
        if self.git is not None and f"{sha256_hex(record.source)}/{record.sha256}.json" not in self.git:
            return f"capture {record.sha256[:12]}… is neither committed nor staged (git add it)"
        if self.evidence is not None:
            issues = self.evidence.issues(self.store, record)
            if issues:
                rule, message = issues[0]
                return f"{rule}: {message}"
        return None

    def revisions(self, source: str) -> tuple[list[CaptureRecord], list[tuple[CaptureRecord, str]]]:
        """The usable revisions of ``source``, oldest first, and each verified one left out
        with why."""
        usable, left_out = [], []
        for record in self.store.verified_revisions(source):
            problem = self.problem(record)
            if problem is None:
                usable.append(record)
            else:
                left_out.append((record, problem))
        return usable, left_out


def _request_order(record: CaptureRecord) -> tuple[int, str]:
    """A batch's documents in their request's order (the ``index`` its extractor options
    record), then by digest."""
    options = record.extractor.options if record.extractor is not None else None
    index = options.get("index") if isinstance(options, dict) else None
    return (index if isinstance(index, int) else 1 << 62), record.sha256


def _newest(source: str, usable: list[CaptureRecord]) -> tuple[CaptureRecord, ...]:
    """The newest of ``usable`` (oldest first, not empty): the revisions with the latest
    ``retrievedAt``, with their batch siblings when they are one batch.

    Raises:
        UsageError: several revisions, not one batch, share the latest ``retrievedAt``:
            nothing says which the model should see, so none is picked by its digest.
    """
    top = time_key(usable[-1].retrieved_at)
    tied = [r for r in usable if time_key(r.retrieved_at) == top]
    batches = {r.batch for r in tied}
    if len(tied) > 1 and (len(batches) > 1 or None in batches):
        raise UsageError(f"{len(tied)} revisions of {source} share the newest retrievedAt ({tied[0].retrieved_at}) "
                         f"and are not one batch: {', '.join(r.sha256 for r in tied)}; name one with --revision")
    batch = tied[0].batch
    group = [r for r in usable if batch is not None and r.batch == batch] or tied
    return tuple(sorted(group, key=_request_order))


def _named(source: str, usable: list[CaptureRecord], prefixes: Sequence[str]) -> CaptureRecord | None:
    """The revision of ``source`` that one of ``prefixes`` names, or None when none does.

    Raises:
        UsageError: a prefix names several revisions of ``source``, or ``prefixes`` name two.
    """
    hits: dict[str, CaptureRecord] = {}
    for prefix in prefixes:
        matches = [r for r in usable if r.sha256.startswith(prefix)]
        if len(matches) > 1:
            raise UsageError(f"--revision {prefix} names {len(matches)} revisions of {source}: give more digits")
        if matches:
            hits[matches[0].sha256] = matches[0]
    if len(hits) > 1:
        raise UsageError(f"--revision names {len(hits)} revisions of {source}: name one per source")
    return next(iter(hits.values()), None)


def _hex_prefix(value: str, what: str, minimum: int) -> str:
    prefix = value.strip().lower()
    if not re.fullmatch(f"[0-9a-f]{{{minimum},64}}", prefix):
        raise UsageError(f"{what} {value!r} is not a capture digest: {minimum} to 64 hex digits")
    return prefix


def select(config: Config, cwd: Path, *, sources: Sequence[str] = (), revisions: Sequence[str] = (),
           batch: str | None = None) -> Selection:
    """The sources to give the model, from committed, verified captures of approved sources.

    Args:
        config: the project's configuration (its ``sources``, captures directory, evidence).
        cwd: the directory paths in messages are relative to.
        sources: source URLs, each taken at its newest usable revision; empty: every
            approved source (those with no usable capture are left out, with a note).
        revisions: capture digests (or unique prefixes of at least 4 hex digits), each naming
            the revision to take of one of ``sources`` instead of its newest.
        batch: a batch digest (or a unique prefix of at least 8 hex digits): every usable
            capture of that batch (``capture --from-request``), in its request's order.

    Returns:
        The chosen sources, in the order given (``sources``, the config's ``sources``, or
        the batch's request), and notes on what was left out.

    Raises:
        UsageError: options that do not go together, a source that is not approved, a
            named source or batch with no usable capture, a revision or batch that names
            nothing or several, revisions tied for newest, or an unreadable allowed-signers file.
    """
    if batch is not None and (sources or revisions):
        raise UsageError("--batch selects its own sources: it cannot be combined with --source or --revision")
    if revisions and not sources:
        raise UsageError("--revision names a revision of a --source: give the sources too")
    unapproved = [s for s in sources if not config.is_approved(s)]
    if unapproved:
        raise UsageError(f"not an approved source (citelint.yaml `sources`): {unapproved[0]}; a link to it "
                         "would fail citelint check (CL201)")
    usable = CommittedCaptures(config, cwd)
    store = usable.store
    if batch is not None:
        return _batch(config, store, usable, _hex_prefix(batch, "--batch", 8))
    prefixes = [_hex_prefix(r, "--revision", 4) for r in revisions]
    named = bool(sources)
    chosen: list[ContextSource] = []
    notes: list[str] = []
    used: set[str] = set()
    for source in dict.fromkeys(sources or config.sources):
        good, left_out = usable.revisions(source)
        revision = _named(source, good, prefixes) if prefixes else None
        if revision is not None:
            used.add(revision.sha256)
            chosen.append(ContextSource(source, (revision,)))
            continue
        if not good:
            reason = left_out[-1][1] if left_out else (
                "every capture is corrupt (see citelint ls)" if store.revisions(source) else "no capture yet")
            if named:
                raise UsageError(f"{source}: no committed, verified capture to give: {reason}")
            notes.append(f"left out {source}: {reason}")
            continue
        records = _newest(source, good)
        newer = [(r, why) for r, why in left_out if time_key(r.retrieved_at) > time_key(records[0].retrieved_at)]
        if newer:
            notes.append(f"{source}: a newer revision is not given: {newer[-1][1]}")
        failing = len(store.revisions(source)) - len(good) - len(left_out)
        if failing > 0:
            # A corrupt file has no date to trust: it may be the newest revision, so say so.
            several = failing > 1
            notes.append(f"{source}: {failing} revision file{'s' * several} of it {'fail' if several else 'fails'} "
                         f"verification and {'are' if several else 'is'} not given (it may be newer than the one "
                         "given); see `citelint ls`, and restore it from version control")
        chosen.append(ContextSource(source, records))
    unused = [p for p in prefixes if not any(sha.startswith(p) for sha in used)]
    if unused:
        raise UsageError(f"--revision {unused[0]} names no committed, verified revision of the sources given")
    return Selection(chosen, notes)


def _batch(config: Config, store: Store, usable: CommittedCaptures, prefix: str) -> Selection:
    """:func:`select` for ``--batch``: the batch's usable captures of approved sources."""
    found: dict[str, list[CaptureRecord]] = {}
    for _, record in store.iter_records():
        if isinstance(record, CaptureRecord) and record.batch is not None and record.batch.startswith(prefix):
            found.setdefault(record.batch, []).append(record)
    if len(found) > 1:
        raise UsageError(f"--batch {prefix} names {len(found)} batches: give more digits")
    if not found:
        raise UsageError(f"--batch {prefix}: no capture of the store is of that batch")
    notes = []
    records = []
    for record in sorted(next(iter(found.values())), key=_request_order):
        problem = None if config.is_approved(record.source) else "not an approved source"
        problem = problem or usable.problem(record)
        if problem:
            notes.append(f"left out {record.source} capture {record.sha256[:12]}…: {problem}")
        else:
            records.append(record)
    if not records:
        raise UsageError(f"--batch {prefix}: no committed, verified capture to give: " + "; ".join(notes))
    by_source: dict[str, list[CaptureRecord]] = {}
    for record in records:
        by_source.setdefault(record.source, []).append(record)
    return Selection([ContextSource(s, tuple(rs)) for s, rs in by_source.items()], notes)


def bound(sources: Sequence[ContextSource], max_chars: int | None
          ) -> tuple[list[ContextSource], list[ContextSource]]:
    """The sources that fit in ``max_chars`` characters of text (None: no bound), taken in
    order, each whole or not at all (a source that does not fit is dropped, and a later,
    shorter one may still fit); and those dropped."""
    if max_chars is None:
        return list(sources), []
    kept, dropped, total = [], [], 0
    for item in sources:
        if total + item.chars <= max_chars:
            kept.append(item)
            total += item.chars
        else:
            dropped.append(item)
    return kept, dropped


def _numbered(sources: Sequence[ContextSource]) -> list[tuple[int, CaptureRecord]]:
    """Every record, numbered from 1 in order: the ``[n]`` the list and the texts share."""
    records = [r for item in sources for r in item.records]
    return list(enumerate(records, 1))


def _fence(text: str) -> str:
    """A backtick fence longer than any backtick run in ``text``, so no line of it closes the block."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def render(fmt: str, sources: Sequence[ContextSource]) -> str:
    """``sources`` as ``fmt`` (one of :data:`FORMATS`), ending in a newline.

    - ``anthropic``: a JSON array of ``document`` content blocks, one per capture
      (``source`` its text, ``title`` the source URL, ``context`` ``capture:<sha256>``,
      ``citations: {"enabled": true}``), to put in a Messages request's user content;
    - ``openai``: a JSON array of ``input_text`` content parts for the Responses API: the
      instruction and list first, then one part per capture with its number, URL and digest;
    - ``text``: the instruction, the numbered list (URL and capture digest), then the texts;
    - ``markdown``: the same as Markdown, each text in a fenced code block.

    Raises:
        ValueError: ``fmt`` is not one of :data:`FORMATS`.
    """
    numbered = _numbered(sources)
    listing = "\n".join(f"[{n}] {r.source} (capture {r.sha256})" for n, r in numbered)
    if fmt == "anthropic":
        blocks = [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": r.text},
                   "title": r.source, "context": capture_context(r.sha256), "citations": {"enabled": True}}
                  for _, r in numbered]
        return json.dumps(blocks, ensure_ascii=False, indent=2) + "\n"
    if fmt == "openai":
        parts = [{"type": "input_text", "text": f"{INSTRUCTION}\n\n{listing}"}]
        parts += [{"type": "input_text", "text": f"[{n}] {r.source} (capture {r.sha256})\n\n{r.text}"}
                  for n, r in numbered]
        return json.dumps(parts, ensure_ascii=False, indent=2) + "\n"
    if fmt == "text":
        texts = "".join(f"\n[{n}] {r.source} (capture {r.sha256})\n\n{r.text}\n" for n, r in numbered)
        return f"{INSTRUCTION}\n\n{listing}\n{texts}"
    if fmt == "markdown":
        items = "\n".join(f"{n}. {r.source} (capture `{r.sha256}`)" for n, r in numbered)
        texts = "".join(f"\n## [{n}] {r.source}\n\ncapture `{r.sha256}`, retrieved {r.retrieved_at}\n\n"
                        f"{_fence(r.text)}text\n{r.text}{'' if r.text.endswith(chr(10)) else chr(10)}"
                        f"{_fence(r.text)}\n" for n, r in numbered)
        return f"# Permissible sources\n\n{INSTRUCTION}\n\n{items}\n{texts}"
    raise ValueError(f"unknown context format {fmt!r}; one of {', '.join(FORMATS)}")


@dataclass(frozen=True)
class Built:
    """What :func:`build` gives: ``text`` exactly as ``citelint context`` prints it (empty when
    nothing is kept), the sources ``kept`` and ``dropped`` by the budget, and the selection's
    ``notes``."""

    text: str
    kept: list[ContextSource]
    dropped: list[ContextSource]
    notes: list[str]


def build(config: Config, cwd: Path, fmt: str, *, sources: Sequence[str] = (), revisions: Sequence[str] = (),
          batch: str | None = None, max_chars: int | None = None) -> Built:
    """:func:`select`, then :func:`bound` by ``max_chars``, then :func:`render` as ``fmt``
    (nothing is rendered when no source is kept).

    Raises:
        UsageError: as :func:`select`; ``fmt`` not one of :data:`FORMATS`; ``max_chars``
            not a positive whole number.
    """
    if fmt not in FORMATS:
        raise UsageError(f"unknown context format {fmt!r}; one of {', '.join(FORMATS)}")
    if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1):
        raise UsageError(f"max_chars {max_chars!r} is not a positive whole number of characters")
    selection = select(config, cwd, sources=sources, revisions=revisions, batch=batch)
    kept, dropped = bound(selection.sources, max_chars)
    return Built(render(fmt, kept) if kept else "", kept, dropped, selection.notes)
