"""The Python API's :class:`Project`: a config and its committed captures,
checked, enforced and (the trusted stage) added to from Python.

``citelint check`` opens its project with :func:`open_project` and checks
through :func:`check_paths`, the functions :class:`Project` itself uses, so
the command line and the API give one result; :class:`~citelint.Result`
is built from the dictionary ``--format json`` prints. This module loads no
dataclass and no Markdown or capture library: the result types
(:mod:`citelint.api.result`) load with the first call that returns one, so
``citelint check`` does not pay for them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citelint import __version__
from citelint.check.run import run_check
from citelint.config import Config, config_from_data, load_config
from citelint.errors import ConfigError, UsageError
from citelint.model import CheckResult

if TYPE_CHECKING:
    from citelint.api.capture import CaptureRef
    from citelint.api.links import Enforced
    from citelint.api.prompt import Context, Imported
    from citelint.api.result import Result
    from citelint.check.shard import Shard
    from citelint.check.targets import Target
    from citelint.git.resolve import Resolving

#: How findings name a report given as content when the call names none.
REPORT_NAME = "<report>"
MARKDOWN_NAME = "<markdown>"


class Project:
    """A citelint project: its config (approved sources and labels, rules,
    limits) and its capture store, checked without changing the working
    directory, in this process, with nothing written and no network used
    (only :meth:`capture` and :meth:`record` write, and only captures).

    ``Project(captures=..., sources=..., labels=..., links_allow=..., root=...)``
    is a project with no config file: ``captures`` is the capture store
    (a path, relative to ``root``; default ``captures``), ``sources`` the
    approved source URLs, ``labels`` the approved labels (names, or a
    mapping of name to ``{"unit": ..., "period": ..., "check_at": ...}``;
    patterns such as ``claim-*`` allowed), ``links_allow`` URLs or ``*``
    prefixes links may point at without a capture, ``root`` the project
    directory (default: the working directory, made absolute now). Any
    other setting: :meth:`from_config`; a config file: :meth:`open`.

    Reads (:meth:`check`, :meth:`check_report`, :meth:`check_markdown`,
    :meth:`enforce_links`, :meth:`context`, :meth:`import_response`) may run in several threads at once on one
    project: each builds its own view of the store.

    Raises:
        ConfigError: the settings fail ``schemas/config.schema.json`` or a
            check the config file would fail.
        UsageError: ``sources``, ``labels`` or ``links_allow`` is one string,
            or ``root`` is not a directory.
    """

    __slots__ = ("_config",)

    def __init__(self, *, captures: str | os.PathLike[str] = "captures", sources: Iterable[str] = (),
                 labels: Iterable[str] | Mapping[str, Mapping[str, str] | None] = (),
                 links_allow: Iterable[str] = (), root: str | os.PathLike[str] = ".") -> None:
        for name, value in (("sources", sources), ("labels", labels), ("links_allow", links_allow)):
            if isinstance(value, (str, bytes)):
                # list("https://...") would approve each character.
                raise UsageError(f"{name} takes a list, not one string")
        data: dict[str, Any] = {"captures": os.fspath(captures), "sources": list(sources),
                                "labels": _plain(labels, "labels") if isinstance(labels, Mapping) else list(labels)}
        allow = list(links_allow)
        if allow:
            data["links"] = {"allow": allow}
        self._config = _from_data(data, root)

    @classmethod
    def open(cls, path: str | os.PathLike[str] = ".") -> Project:
        """The project whose config governs ``path``: a directory (its
        ``citelint.yaml``, or ``[tool.citelint]`` in its ``pyproject.toml``,
        found by walking up from it, as ``citelint check`` does from its
        working directory), or a config file itself. A relative ``path`` is
        taken from the working directory, which is never changed.

        Raises:
            ConfigError: no config found, two in one directory, or one that
                does not parse or validate (the message names file, key, line).
        """
        # Absolute first: discovery walks up the path's parents, which a relative "." has none of.
        given = Path(os.path.abspath(path))
        return open_project(None if given.is_dir() else given, given if given.is_dir() else given.parent)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], root: str | os.PathLike[str] = ".") -> Project:
        """The project of a config given as a mapping (anything
        ``schemas/config.schema.json`` accepts: what ``citelint.yaml``
        holds) for the project directory ``root`` (default the working
        directory, made absolute now). ``config`` is copied, never changed.

        Raises:
            ConfigError: ``config`` fails the schema or a check the config file
                would fail (an unknown rule, a locked rule lowered, a bad glob),
                or holds a value no config file can (a path, a set).
            UsageError: ``root`` is not a directory.
        """
        return cls._of(_from_data(_plain(config, "config") if isinstance(config, Mapping) else config, root))

    @classmethod
    def _of(cls, config: Config) -> Project:
        project = cls.__new__(cls)
        project._config = config
        return project

    def __repr__(self) -> str:
        return f"Project(root={str(self.root)!r}, captures={str(self.captures_dir)!r})"

    @property
    def root(self) -> Path:
        """The project directory (absolute): report globs and paths are relative to it."""
        return self._config.root

    @property
    def captures_dir(self) -> Path:
        """The capture store's directory (absolute)."""
        return self._config.captures_dir

    @property
    def config_path(self) -> Path | None:
        """The config file (absolute), or None for a project given as data."""
        return self._config.path

    @property
    def sources(self) -> tuple[str, ...]:
        """The approved source URLs, as the config lists them."""
        return tuple(self._config.sources)

    # ------------------------------------------------------------------ reads

    def check(self, paths: Iterable[str | os.PathLike[str]] | None = None) -> Result:
        """Check the project's reports, as ``citelint check --format json``
        does from the project root: every report the config's globs match
        (``paths`` None), or those among the given files and folders
        (relative to the root).

        Returns:
            :class:`~citelint.Result`, whose ``to_dict()`` is that JSON.

        Raises:
            UsageError: a named path does not exist, a named file is not a
                report the config matches (never passed over in silence: to
                check content as a report whatever its name, use
                :meth:`check_report` or :meth:`check_markdown`), or the
                config's allowed-signers file cannot be read.
        """
        if isinstance(paths, (str, bytes)):
            raise UsageError("paths takes a list of paths, not one string")
        named = [os.fspath(p) for p in paths] if paths is not None else []
        check = check_paths(self, named, cwd=self.root)
        if check.skipped:
            path, why = check.skipped[0]
            raise UsageError(f"{path}: {why}, so it would not be checked; name a report the config matches, or "
                             "check its content with check_report or check_markdown")
        return self._result(check)

    def check_report(self, report: Mapping[str, Any] | str | bytes, *, name: str = REPORT_NAME) -> Result:
        """Check one fact report given as content: a mapping (the parsed
        report, serialised as JSON with an indent of 2 first, so positions
        are in that text), a ``str`` or UTF-8 ``bytes`` (JSON, or YAML when
        ``name`` ends in ``.yaml`` or ``.yml``). ``name`` is how findings
        name it (relative to the root; the file need not exist): it is
        checked as a fact report whatever the globs say.

        Returns:
            :class:`~citelint.Result`; a report that does not parse is a
            CL001 finding in it, not an exception.

        Raises:
            UsageError: ``report`` is none of those types.
        """
        syntax = None
        if isinstance(report, Mapping):
            try:
                content = json.dumps(report, ensure_ascii=False, indent=2).encode("utf-8")
            except (TypeError, ValueError) as exc:
                raise UsageError(f"check_report: the report mapping is not JSON data: {exc}") from None
            syntax = "json"
        else:
            content = _content(report, "check_report takes the report as a mapping, str or bytes")
        return self._given(name, content, "report", syntax)

    def check_markdown(self, markdown: str | bytes, *, name: str = MARKDOWN_NAME) -> Result:
        """Check one Markdown report given as text (``str``, or UTF-8
        ``bytes``): its links (CL201-CL204), its prose quotations and numbers
        (CL205, CL206), as ``citelint check`` checks a Markdown file. ``name``
        is how findings name it (relative to the root; need not exist).

        Returns:
            :class:`~citelint.Result`.

        Raises:
            UsageError: ``markdown`` is neither ``str`` nor ``bytes``.
        """
        return self._given(name, _content(markdown, "check_markdown takes the Markdown as str or bytes"), "markdown",
                           None)

    def enforce_links(self, markdown: str) -> Enforced:
        """``markdown`` with every link the project's captures (and
        ``links.allow``) do not ground degraded to its visible text, as
        ``citelint check --fix`` rewrites a Markdown report; nothing is
        written. ``links.relative`` and ``links.images`` apply.

        Returns:
            :class:`~citelint.Enforced`: the new text and the removed links.

        Raises:
            UsageError: ``markdown`` is not a str; the allowed-signers file
                cannot be read.
        """
        from citelint.api.links import enforce_with
        from citelint.check.grounding import GitTracking, build_allowlist
        from citelint.store.captures import Store

        config = self._config
        evidence = build_allowlist(config, Store(config.captures_dir), GitTracking(config, config.root),
                                   _verifier(config))
        return enforce_with(markdown, evidence, relative=config.links.relative, images=config.links.images)

    def context(self, sources: Sequence[str] | None = None, *, revisions: Sequence[str] | None = None,
                batch: str | None = None, format: str = "text", max_chars: int | None = None) -> Context:
        """The permissible sources for a model's prompt, as ``citelint
        context`` gives them from the project root: committed, verified
        captures of approved sources (tracked or staged by git inside a work
        tree; signed, with ``evidence.allowed_signers``). Read-only.

        ``sources`` are approved source URLs, each at its newest usable
        revision, in that order (None: every approved source with a usable
        capture, in the config's order); ``revisions`` capture digests (unique
        prefixes of 4 or more hex digits), each naming the revision of one of
        ``sources`` to give instead; ``batch`` a ``capture --from-request``
        batch digest (a prefix of 8 or more hex digits), every capture of it
        in the request's order; ``format`` one of ``"anthropic"`` (document
        blocks with citations enabled, title the source URL, context
        ``capture:<sha256>``), ``"openai"`` (input_text parts), ``"text"``,
        ``"markdown"``; ``max_chars`` a bound on the characters of source
        text, which drops whole sources, in order.

        Returns:
            :class:`~citelint.Context`: ``text`` is what ``citelint context``
            prints, ``value`` the same as data, ``dropped`` the sources
            ``max_chars`` left out.

        Raises:
            UsageError: an unknown format, a ``max_chars`` that is not a
                positive whole number, ``sources`` or ``revisions`` given as
                one string, ``batch`` with ``sources`` or ``revisions``, a
                source that is not approved, a named source or batch with no
                usable capture, a revision or batch naming nothing or several,
                revisions tied for newest, an unreadable allowed-signers file;
                or nothing to give (no source has a usable capture, or none
                fits in ``max_chars``).
        """
        from citelint.api.prompt import context

        return context(self._config, sources, revisions, batch, format, max_chars)

    def import_response(self, response: Mapping[str, Any] | str | bytes, *, vendor: str = "anthropic",
                        request: Mapping[str, Any] | str | bytes | None = None,
                        source_map: Mapping[str, str] | str | bytes | None = None, as_: str = "markdown",
                        allow_unlinked: bool = False) -> Imported:
        """A model's saved response with citations as a report's text, as
        ``citelint import VENDOR RESPONSE`` writes it; nothing is written
        (the caller writes the report) and no capture is ever made from it.

        ``response`` is the response body: a mapping (the parsed JSON), or
        its ``str`` or ``bytes`` (JSON, or a saved stream of server-sent
        events); ``vendor`` one of ``"anthropic"``, ``"openai"``,
        ``"gemini"``, ``"cohere"``, ``"perplexity"``; ``request`` the request
        body that produced it (same types), whose documents name the capture
        each quotation is checked in (a request built from :meth:`context`
        needs no source map); ``source_map`` document key -> source URL (a
        mapping, or its JSON or YAML text); ``as_`` ``"markdown"`` (one link
        per citation) or ``"facts"`` (a fact report, JSON text).

        Returns:
            :class:`~citelint.Imported`: the report's ``text`` and its notes.

        Raises:
            UsageError: an unknown vendor or kind, an argument of the wrong
                type or not JSON data, a response, request or source map that
                does not parse, a response of a shape the vendor's adapter
                does not read, no citation that can be a fact (``facts``), or
                citations that could be given no source URL while
                ``allow_unlinked`` is False (the message names them).
        """
        from citelint.api.prompt import import_response

        return import_response(response, vendor, request, source_map, as_, allow_unlinked)

    # ------------------------------------------------------------------ the trusted stage

    def capture(self, url: str) -> CaptureRef:
        """Fetch the approved source ``url`` and add it to the capture store,
        as ``citelint capture URL`` does: HTTPS only, the URL equal to an
        approved source, globally routable addresses, one deadline and byte
        limit (the config's ``capture`` block), no redirects; HTML and PDF
        extracted to text. Never call it with a URL a model chose.

        Returns:
            :class:`~citelint.CaptureRef` of the revision (``created`` False
            when that exact text was captured before).

        Raises:
            CaptureRefused: the source, the fetch or the body was refused
                (the message says why); nothing was written.
        """
        from citelint.api.capture import capture

        return capture(self._config, url)

    def record(self, source: str, body: str | bytes, *, content_type: str | None = None,
               retrieved_at: str | None = None) -> CaptureRef:
        """Record a body a pipeline already holds (what the model was given)
        as a capture of the approved ``source``, as ``citelint capture
        --from-file F --source URL`` does; nothing is fetched. ``body`` is
        text or the bytes as received; ``content_type`` (``text/plain``,
        ``text/html``, ``application/pdf``) picks the extractor, and with
        none a body that looks like markup or binary is refused;
        ``retrieved_at`` is RFC 3339 UTC (``2026-01-31T12:00:00Z``; default now).

        Returns:
            :class:`~citelint.CaptureRef` of the revision.

        Raises:
            CaptureRefused: the source is not approved, the body is over the
                limit, empty, not text, or of a type not allowed; nothing was written.
            UsageError: ``body`` is neither str nor bytes.
        """
        from citelint.api.capture import record

        return record(self._config, source, body, content_type, retrieved_at)

    # ------------------------------------------------------------------ helpers

    def _given(self, name: str, content: bytes, kind: str, syntax: str | None) -> Result:
        from citelint.check.targets import given_target

        if not isinstance(name, str) or not name:
            raise UsageError("name is the report's path as findings show it: a non-empty str")
        target = given_target(name, content, kind, self.root, syntax)
        return self._result(check_paths(self, [], cwd=self.root, given=target))

    @staticmethod
    def _result(check: CheckResult) -> Result:
        from citelint.api.result import result_of

        return result_of(check, __version__)


def _plain(value: Mapping[str, Any], what: str) -> Any:
    """A deep copy of ``value`` as plain JSON data (what a config file can hold).

    Raises:
        ConfigError: ``value`` holds what JSON cannot (a path, a set). A NaN
            passes here; the config check refuses it, naming its key.
    """
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what}: not data a config can hold ({exc}); use strings, numbers, booleans, "
                          "lists and mappings") from None


def _content(value: object, wanted: str) -> bytes:
    """``value`` as the bytes to check (a str as UTF-8).

    Raises:
        UsageError: ``value`` is neither; the message is ``wanted`` and the type given.
    """
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate: the bytes say so, and the check reports CL001 at its place.
            return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise UsageError(f"{wanted}, got {type(value).__name__}")


def _from_data(data: Any, root: str | os.PathLike[str]) -> Config:
    """The config of ``data`` for the directory ``root``, made absolute now.

    Raises:
        ConfigError: as :func:`citelint.config.config_from_data`; UsageError:
            ``root`` is not a directory.
    """
    where = Path(os.path.abspath(root))
    if not where.is_dir():
        raise UsageError(f"{where}: the project root is not a directory")
    return config_from_data(data, where.resolve(), None, "config")


def _verifier(config: Config) -> Any:
    """The signature verifier the config asks for, or None (signature modules load only then)."""
    if config.evidence.allowed_signers is None:
        return None
    from citelint.evidence.verify import verifier_for

    return verifier_for(config, config.root)


def open_project(explicit: Path | None, cwd: Path) -> Project:
    """The project of the config file ``explicit`` (relative to ``cwd``), or
    of the config discovered from ``cwd`` upward, as ``citelint check`` and
    :meth:`Project.open` load it.

    Raises:
        ConfigError: as :func:`citelint.config.load_config`.
    """
    return Project._of(load_config(explicit, cwd))


def project_config(project: Project) -> Config:
    """The validated config of ``project`` (for the command line, which also
    needs what it protects and how it names files)."""
    return project._config


def check_paths(project: Project, paths: Sequence[str], *, cwd: Path, fix: bool = False,
                progress: Callable[[int, int], None] | None = None, base: str | None = None,
                resolving: Resolving | None = None, jobs: int | None = 1, base_missing: str = "error",
                stdin: tuple[str, bytes] | None = None, context_chars: int = 0,
                given: Target | None = None, base_reports: bool = False, shard: Shard | None = None,
                keep_accepted: bool = True) -> CheckResult:
    """The one check both ``citelint check`` and :class:`Project` run
    (:func:`citelint.check.run.run_check` with the project's config):
    findings name files relative to ``cwd``. The API passes the project
    root and one process (``jobs=1``: no worker is forked from a caller's
    threads); the command line its working directory and flags.
    ``context_chars`` is capture text kept around each snippet for
    formats that show it (:data:`citelint.facts.CONTEXT_CHARS`).
    ``base_reports`` (with ``base``) also yields the base's review
    fingerprints, for the step summary's added-only review list.
    ``shard`` (``check --shard K/N``) checks that shard's part of the run
    (:mod:`citelint.check.shard`).
    ``keep_accepted`` False: the result counts the accepted citations but
    lists none (``accepted`` and the CL901 notices stay empty), for output
    that only counts them.

    Raises:
        UsageError: as :func:`citelint.check.run.run_check`.
    """
    return run_check(project._config, paths, cwd, fix=fix, progress=progress, base=base, resolving=resolving,
                     jobs=jobs, base_missing=base_missing, stdin=stdin, context_chars=context_chars, given=given,
                     base_reports=base_reports, shard=shard, keep_accepted=keep_accepted)


__all__ = ["Project", "check_paths", "open_project", "project_config"]
