"""Configuration: discovery, validation and the resolved settings (DESIGN §2.1).

The config is ``citelint.yaml`` or the ``[tool.citelint]`` table of
``pyproject.toml``, found by walking up from the working directory (or given
by ``--config``). It is validated against ``schemas/config.schema.json``; any
problem is a :class:`ConfigError` naming the file, the key and the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from citelint.configfile import PYPROJECT, load_raw, non_finite, schema_error_message
from citelint.errors import ConfigError
from citelint.escape import is_invisible_char, visible_repr
from citelint.model import RULES, SEVERITY_ORDER, ApprovedLabels, LabelInfo
from citelint.reports import pointers
from citelint.reports.pointers import join as pointer_join
from citelint.reports.schema import config_validator, quick_valid
from citelint.settings import (
    DEFAULT_CONTENT_TYPES,
    DEFAULT_EXTRACTORS,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT_S,
    EXTRACTOR_TYPES,
    CaptureSettings,
)

CONFIG_NAME = "citelint.yaml"
DEFAULT_REPORTS = ["reports/**/*.json", "reports/**/*.yaml", "reports/**/*.yml"]
DEFAULT_MARKDOWN = ["reports/**/*.md"]


class LinkSettings(NamedTuple):
    """Markdown link governance (DESIGN §2.4)."""

    allow: tuple[str, ...] = ()
    relative: str = "pass"
    images: bool = False
    ignore_query_params: tuple[str, ...] = ()


class QuoteSettings(NamedTuple):
    """Prose quotations (CL205; docs/quotations.md): ``enabled`` False turns
    them off; ``min_chars`` visible characters a quotation needs to be checked
    (counted over its segments); ``min_segment_chars`` each segment of an
    elided quotation needs (a shorter one is CL205); ``max_elision_chars`` the
    most capture characters an elision may stand for."""

    enabled: bool = True
    min_chars: int = 20
    min_segment_chars: int = 12
    max_elision_chars: int = 1000


class EvidenceSettings(NamedTuple):
    """Signed evidence (DESIGN §9): ``allowed_signers`` is the absolute path
    of the operator's allowed-signers file (git's format), or None (signatures
    are then not checked); ``require_signatures`` turns CL401 on."""

    allowed_signers: Path | None = None
    require_signatures: bool = False


class ReviewSettings(NamedTuple):
    """The review ledger (docs/reviews.md): ``dir`` is the absolute path of the
    committed, append-only folder of reviews (config ``reviews.dir``, default
    ``reviews`` beside the config); ``allowed_signers`` the absolute path of
    the allowed-signers file (git's format) whose keys may sign reviews
    (namespace ``citelint-review``), or None: then every well-formed review
    counts and the ledger is advisory."""

    dir: Path
    allowed_signers: Path | None = None


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a POSIX-path glob: ``**`` spans folders, ``*`` and ``?`` do not.

    ``dir/**`` matches everything below ``dir``; ``**/x`` matches ``x`` at any depth.
    """
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


class Config:
    """A validated configuration. Paths are absolute; globs are relative to
    ``root``. ``path`` is the config file, or None for a config given as data
    (:func:`config_from_data`). ``root``, ``captures_dir`` and the glob lists
    are read once, at construction (make a new Config to change them)."""

    def __init__(self, path: Path | None, root: Path, captures_dir: Path, reports: list[str] | None = None,
                 markdown: list[str] | None = None, exclude: list[str] | None = None,
                 rules: dict[str, str] | None = None, require_captures_on_base: bool = False,
                 sources: list[str] | None = None, labels: ApprovedLabels | None = None,
                 capture: CaptureSettings | None = None, links: LinkSettings | None = None,
                 facts_pointer: str | None = None, evidence: EvidenceSettings | None = None,
                 quotes: QuoteSettings | None = None, reviews: ReviewSettings | None = None):
        self.path, self.root, self.captures_dir = path, root, captures_dir
        self.reports = list(DEFAULT_REPORTS) if reports is None else reports
        self.markdown = list(DEFAULT_MARKDOWN) if markdown is None else markdown
        self.exclude = [] if exclude is None else exclude
        self.rules: dict[str, str] = {} if rules is None else rules
        self.require_captures_on_base = require_captures_on_base
        self.sources = [] if sources is None else sources
        self.labels = ApprovedLabels() if labels is None else labels
        self.capture = CaptureSettings() if capture is None else capture
        self.links = LinkSettings() if links is None else links
        self.facts_pointer = facts_pointer
        self.evidence = EvidenceSettings() if evidence is None else evidence
        self.quotes = QuoteSettings() if quotes is None else quotes
        self.reviews = ReviewSettings(Path(os.path.normpath(root / "reviews"))) if reviews is None else reviews
        self._compile()

    def __repr__(self) -> str:
        return f"Config(path={self.path!r}, root={self.root!r}, captures_dir={self.captures_dir!r})"

    def _compile(self) -> None:
        self._report_re = [glob_to_regex(g) for g in self.reports]
        self._markdown_re = [glob_to_regex(g) for g in self.markdown]
        self._exclude_re = [glob_to_regex(g) for g in self.exclude]
        self._source_set = frozenset(self.sources)
        # Fixed with the config: classify() tests every candidate file against them.
        self._root = str(self.root)
        self._root_prefix = dir_prefix(self._root)
        self._captures = str(self.captures_dir)
        self._captures_prefix = dir_prefix(self._captures)
        self._reviews = str(self.reviews.dir)
        self._reviews_prefix = dir_prefix(self._reviews)

    def severity(self, rule: str) -> str:
        """Configured severity of ``rule``: error, warning, notice or off.
        A rule with ``enabled_by`` (CL302: ``require_captures_on_base``) is
        off unless that key is true; a dotted key (CL401:
        ``evidence.require_signatures``) names a key of a block."""
        enabled_by = RULES[rule].enabled_by
        if enabled_by is not None:
            value: Any = self
            for part in enabled_by.split("."):
                value = getattr(value, part)
            if not value:
                return "off"
        return self.rules.get(rule, RULES[rule].severity)

    def is_approved(self, source: str) -> bool:
        """Exact string membership in ``sources``."""
        return source in self._source_set

    def classify(self, path: Path | str) -> tuple[str | None, str]:
        """Which glob list matches the absolute, normalised ``path`` (a
        :class:`~pathlib.Path` or the string of one): ``("report", "")``,
        ``("markdown", "")``, or ``(None, why not)``.

        Files outside the config root, under the captures directory, or
        matching ``exclude`` are never reports (DESIGN §2.1). The tests are
        string prefixes on the path, the same answer ``PurePath.relative_to``
        gives for a normalised path, at a fraction of its cost per file.
        """
        text = os.fspath(path)
        rel = self.relative(text)
        if rel is None:
            return None, f"outside the project directory {self.root} (where the config is)"
        if text.startswith(self._captures_prefix) or text == self._captures:
            return None, "inside the captures directory (evidence, not a report)"
        if text.startswith(self._reviews_prefix) or text == self._reviews:
            return None, "inside the reviews directory (the review ledger, not a report)"
        return self.match(rel)

    def evidence_dirs(self) -> tuple[Path, ...]:
        """The directories whose files are evidence, written only by the
        evidence writer: the captures directory and the reviews directory."""
        return (self.captures_dir, self.reviews.dir)

    def protects(self, path: Path, *, reports: bool = True) -> str | None:
        """Why the output writer must not write ``path`` (resolved), or None.

        Evidence (anything under :meth:`evidence_dirs`), the config file and
        the allowed-signers file it names are always protected; with
        ``reports`` so is every file the report globs match (an output must
        not replace a report being checked or rendered; ``import --out``
        creates reports and passes False). Both the path as given and as
        resolved are tested, so no spelling reaches a protected file.
        """
        spellings = {os.path.normpath(os.fspath(path)), os.path.realpath(path)}
        for text in spellings:
            for folder in self.evidence_dirs():
                for spelled in {str(folder), os.path.realpath(folder)}:
                    if text == spelled or text.startswith(dir_prefix(spelled)):
                        return (f"it is evidence (under {relpath(folder, os.getcwd())}/); only `citelint "
                                "capture`, `migrate`, `attest` and `review` add files there, and never replace "
                                "one: write elsewhere")
            for config_file, what in ((self.path, "the config"),
                                      (self.evidence.allowed_signers, "the config's allowed-signers file"),
                                      (self.reviews.allowed_signers, "the config's allowed-signers file")):
                if config_file is not None and text in (str(config_file), os.path.realpath(config_file)):
                    return f"it is {what}; citelint never writes it: write elsewhere"
            if reports and self.classify(text)[0] is not None:
                return "it is a report the config matches; write the output elsewhere"
        return None

    def relative(self, path: str) -> str | None:
        """The POSIX path of the absolute, normalised ``path`` relative to
        ``root`` (``"."`` for the root itself), or None when it lies outside."""
        if path.startswith(self._root_prefix):
            rel = path[len(self._root_prefix):]
        elif path == self._root:
            rel = "."
        else:
            return None
        return rel if os.sep == "/" else rel.replace(os.sep, "/")

    def match(self, rel: str) -> tuple[str | None, str]:
        """:meth:`classify` for a POSIX path already relative to ``root`` and
        known not to be under the captures directory: ``exclude`` first, then
        the ``reports`` and ``markdown`` globs."""
        if any(r.match(rel) for r in self._exclude_re):
            return None, "matched by the config's `exclude`"
        if any(r.match(rel) for r in self._report_re):
            return "report", ""
        if any(r.match(rel) for r in self._markdown_re):
            return "markdown", ""
        return None, "matches none of the config's `reports` or `markdown` globs"


def dir_prefix(path: str) -> str:
    """``path`` with one trailing separator: the prefix every path below it starts with."""
    return path if path.endswith(os.sep) else path + os.sep


# --------------------------------------------------------------------------- discovery

def has_tool_table(pyproject: Path) -> bool:
    """True when ``pyproject`` exists and has a ``[tool.citelint]`` table
    (a cheap textual test, so discovery never parses TOML it will not use)."""
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r"^\s*\[\s*tool\.citelint\s*[\].]", text, re.M) is not None


def discover(cwd: Path) -> Path:
    """Find the config by walking up from ``cwd``.

    Returns the path of ``citelint.yaml`` or of the ``pyproject.toml`` that
    holds ``[tool.citelint]``.

    Raises:
        ConfigError: both in one directory, or neither anywhere up the tree.
    """
    for directory in [cwd, *cwd.parents]:
        yaml_path = directory / CONFIG_NAME
        toml_path = directory / PYPROJECT
        has_yaml = yaml_path.is_file()
        has_toml = toml_path.is_file() and has_tool_table(toml_path)
        if has_yaml and has_toml:
            raise ConfigError(f"{yaml_path}: both {CONFIG_NAME} and [tool.citelint] in {PYPROJECT}; "
                              "keep one of them")
        if has_yaml:
            return yaml_path
        if has_toml:
            return toml_path
    raise ConfigError(f"no {CONFIG_NAME} or [tool.citelint] in {PYPROJECT} found in {cwd} or any "
                      "parent directory; run `citelint init` to create one, or pass --config")


def salvage_config(config_file: Path) -> list[Config] | None:
    """What the config file at ``config_file`` protects, read as far as it
    can be when the config does not load (an unknown key, a bad value): one
    Config per captures directory it could name (the default ``captures``
    beside it, and its ``captures`` key when that is a string), each with the
    default report globs and the file's own ones, its ``exclude`` ignored.
    None when the file cannot be parsed, or its ``captures``, ``reports`` or
    ``markdown`` cannot be read, so what it protects is unknown (the output
    writer then keeps out of its whole project).
    """
    path = Path(os.path.abspath(config_file))
    try:
        data, _ = load_raw(path, str(config_file))
    except (ConfigError, OSError):
        return None
    if not isinstance(data, dict):
        return None
    named = data.get("captures", "captures")
    globs = {key: data.get(key, []) for key in ("reports", "markdown")}
    if not isinstance(named, str) or not named or not all(
            isinstance(value, list) and all(isinstance(g, str) for g in value) for value in globs.values()):
        return None
    try:
        for value in globs.values():
            for pattern in value:
                glob_to_regex(pattern)
    except re.error:
        return None
    root = path.parent
    block = data.get("reviews")
    reviews = block.get("dir") if isinstance(block, dict) else None
    # Each captures directory it could name, and each reviews directory, is protected as evidence.
    folders = sorted({Path(os.path.normpath(root / "captures")), Path(os.path.normpath(root / named))})
    ledgers = sorted({Path(os.path.normpath(root / "reviews"))}
                     | ({Path(os.path.normpath(root / reviews))} if isinstance(reviews, str) and reviews else set()))
    return [Config(path=path, root=root, captures_dir=folder, reports=DEFAULT_REPORTS + globs["reports"],
                   markdown=DEFAULT_MARKDOWN + globs["markdown"], reviews=ReviewSettings(ledger))
            for folder in folders for ledger in ledgers]


def _capture_extractors(cap: dict, error: Callable[[str, str], ConfigError]) -> tuple[tuple[str, str], ...]:
    """``capture.extractors`` as (media type, extractor) pairs, lower-cased,
    after checking that each extractor reads its media type and that every
    type in ``capture.content_types`` has one (DESIGN §5).

    Raises:
        ConfigError: through ``error(pointer, message)``.
    """
    pairs = tuple((media.strip().lower(), name) for media, name in cap.get("extractors", {}).items())
    for (media, name), key in zip(pairs, cap.get("extractors", {})):
        if sum(m == media for m, _ in pairs) > 1:
            raise error(pointer_join("/capture/extractors", key),
                        f"capture.extractors: {media} is given more than once (media types ignore case)")
        if media not in EXTRACTOR_TYPES[name]:
            raise error(pointer_join("/capture/extractors", key),
                        f"capture.extractors: {name} does not read {media}; it reads "
                        f"{', '.join(EXTRACTOR_TYPES[name])}")
    chosen = dict(DEFAULT_EXTRACTORS + pairs)
    for index, media in enumerate(cap.get("content_types", ())):
        bare = media.split(";")[0].strip().lower()
        if bare not in chosen:
            raise error(f"/capture/content_types/{index}",
                        f"capture.content_types: {media} has no extractor; add it to capture.extractors "
                        f"(one of {', '.join(sorted(EXTRACTOR_TYPES))}) or remove it")
    return pairs


#: Keys where YAML's null (a key with nothing under it) means empty.
_EMPTY_WHEN_NULL: dict[str, list | dict] = {"sources": [], "labels": {}, "exclude": [], "rules": {}}


def load_config(explicit: Path | None, cwd: Path) -> Config:
    """Discover (or take ``explicit``), parse, validate and resolve the config.

    Raises:
        ConfigError: missing, ambiguous, unparsable or invalid configuration;
            a locked rule lowered; the message names file, key and line.
    """
    path = (explicit if explicit.is_absolute() else cwd / explicit) if explicit else discover(cwd)
    # Messages name the file as it was typed, or relative to where the user stands.
    shown = str(explicit) if explicit else relpath(path, cwd)
    if not path.is_file():
        raise ConfigError(f"{shown}: config file not found")
    real = Path(os.path.realpath(path))
    if path.is_symlink() and real.parent != Path(os.path.realpath(path.parent)):
        # The project is the config's directory; a config read from elsewhere
        # would let a pull request swap the operator's config for its own.
        raise ConfigError(f"{shown}: is a symlink to {real}, outside its own directory; citelint reads the "
                          "config only from the project it governs (replace the link by the file)")
    data, locate = load_raw(path, shown)
    return config_from_data(data, path.parent.resolve(), path.resolve(), shown, locate)


def config_from_data(data: Any, root: Path, path: Path | None, shown: str,
                     locate: Callable[[str], tuple[int, int] | None] = lambda pointer: None) -> Config:
    """Validate and resolve a config's parsed ``data`` (what a config file
    holds, or a mapping built in Python) for the project directory ``root``
    (absolute). ``path`` is the config file (None: none, the config was
    given as data); ``shown`` how messages name it; ``locate(pointer)`` the
    (line, column) of a JSON Pointer in the file, or None. ``data`` is
    changed in place (a key holding null becomes empty): pass a copy.

    Raises:
        ConfigError: ``data`` fails the schema or a check below; the message
            starts with ``shown`` and names the key (and line when known).
    """
    def error(pointer: str, message: str) -> ConfigError:
        pos = locate(pointer) if pointer else None
        where = f"{pos[0]}:{pos[1]}: " if pos else ""
        return ConfigError(f"{shown}:{where}{message}")

    if not isinstance(data, dict):
        raise error("", "the configuration must be a mapping of keys")
    # A key left with nothing under it (`sources:` with its items commented out) is empty.
    for key, empty in _EMPTY_WHEN_NULL.items():
        if key in data and data[key] is None:
            data[key] = type(empty)()
    bad = non_finite(data)
    if bad is not None:
        pointer, value = bad
        key = ".".join(pointers.tokens(pointer))
        raise error(pointer, f"{key}: {value} is not a number a setting can hold; write a finite number")

    errors = [] if quick_valid("config.schema.json", data) else \
        sorted(config_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        pointer, message = schema_error_message(errors[0])
        raise error(pointer, message)

    for key in ("reports", "markdown", "exclude"):
        for index, pattern in enumerate(data.get(key, [])):
            try:
                glob_to_regex(pattern)
            except re.error as exc:
                raise error(f"/{key}/{index}", f"{key}: invalid glob {pattern!r} ({exc})") from None

    rules = dict(data.get("rules", {}))
    for rule, level in rules.items():
        if rule not in RULES:
            raise error(f"/rules/{rule}", f"rules: unknown rule {rule}; see `citelint rule --list`")
        default = RULES[rule].severity
        if RULES[rule].locked and (level == "off" or SEVERITY_ORDER[level] > SEVERITY_ORDER[default]):
            raise error(f"/rules/{rule}", f"rules.{rule}: {rule} ({RULES[rule].name}) is part of "
                                          f"citelint's guarantee and cannot be lowered to {level}")

    labels_raw = data.get("labels", [])
    if isinstance(labels_raw, list):
        labels = ApprovedLabels({name: LabelInfo(name) for name in labels_raw})
    else:
        labels = ApprovedLabels({name: LabelInfo(name, **(info or {})) for name, info in labels_raw.items()})

    for name in labels:
        where = pointer_join("/labels", name) if isinstance(labels_raw, dict) else "/labels"
        if name == "":
            raise error(where, "labels: an empty name approves no label a fact can have; remove it")
        if name.strip("*") == "":
            raise error(where, f"labels: {name!r} would approve every label, which turns CL003 off; name the "
                               "labels, or a pattern with a fixed part such as claim-*")
        if name != name.strip():
            # As in a report (CL002): "claim-1 " and "claim-1" would look like one label.
            raise error(where, f"labels: {name!r} begins or ends with whitespace, so it looks like another "
                               "label; remove the whitespace")
        hidden = next((c for c in name if c != " " and is_invisible_char(c)), None)
        if hidden is not None:
            # "revenue\u200b" next to "revenue" would approve a second label that looks like the
            # first, so two facts could share what a reader sees as one label and escape CL004.
            raise error(where, f"labels: {visible_repr(name)} holds the invisible character U+{ord(hidden):04X}, "
                               "so it looks like another label; remove it")

    cap = data.get("capture", {})
    extractors = _capture_extractors(cap, error)
    ca_file = cap.get("ca_file")
    capture = CaptureSettings(
        timeout_s=float(cap.get("timeout_s", DEFAULT_TIMEOUT_S)),
        max_bytes=int(cap.get("max_bytes", DEFAULT_MAX_BYTES)),
        content_types=tuple(cap.get("content_types", DEFAULT_CONTENT_TYPES)),
        allow_private_addresses=bool(cap.get("allow_private_addresses", False)),
        ca_file=str(root / ca_file) if ca_file else None,
        proxy=cap.get("proxy"),
        user_agent=cap.get("user_agent"),
        extractors=extractors,
        keep_raw=bool(cap.get("keep_raw", True)),
        sign_key=str(root / cap["sign_key"]) if cap.get("sign_key") else None,
    )
    lk = data.get("links", {})
    links = LinkSettings(allow=tuple(lk.get("allow", ())), relative=lk.get("relative", "pass"),
                         images=bool(lk.get("images", False)),
                         ignore_query_params=tuple(lk.get("ignore_query_params", ())))
    captures_dir = Path(os.path.normpath(root / data.get("captures", "captures")))
    if captures_dir == root or root.is_relative_to(captures_dir):
        raise error("/captures", f"captures: {data.get('captures')!r} would make the project itself the capture "
                                 "store, so reports and evidence would overlap; name a subdirectory such as "
                                 "`captures`")
    evidence = _evidence(data.get("evidence", {}), root, error)
    reviews = _reviews(data.get("reviews", {}), root, captures_dir, error)
    qt = data.get("quotes", {})
    defaults = QuoteSettings()
    quotes = QuoteSettings(enabled=bool(qt.get("enabled", defaults.enabled)),
                           min_chars=int(qt.get("min_chars", defaults.min_chars)),
                           min_segment_chars=int(qt.get("min_segment_chars", defaults.min_segment_chars)),
                           max_elision_chars=int(qt.get("max_elision_chars", defaults.max_elision_chars)))
    return Config(
        path=path,
        root=root,
        # Lexical, not resolved: a captures/ swapped for a symlink must stay
        # visible as such to the diff-aware rules (CL301).
        captures_dir=captures_dir,
        reports=list(data.get("reports", DEFAULT_REPORTS)),
        markdown=list(data.get("markdown", DEFAULT_MARKDOWN)),
        exclude=list(data.get("exclude", [])),
        rules=rules,
        require_captures_on_base=bool(data.get("require_captures_on_base", False)),
        sources=list(data.get("sources", [])),
        labels=labels,
        capture=capture,
        links=links,
        facts_pointer=data.get("facts_pointer"),
        evidence=evidence,
        quotes=quotes,
        reviews=reviews,
    )


def _evidence(block: dict, root: Path, error: Callable[[str, str], ConfigError]) -> EvidenceSettings:
    """The ``evidence`` block: the allowed-signers file must lie inside the
    project (DESIGN §9: reads stay inside it), and requiring signatures
    needs someone allowed to make them."""
    signers = block.get("allowed_signers")
    path = None if signers is None else \
        _inside(root, signers, "/evidence/allowed_signers", "evidence.allowed_signers", error)
    require = bool(block.get("require_signatures", False))
    if require and path is None:
        raise error("/evidence/require_signatures", "evidence.require_signatures needs evidence.allowed_signers "
                                                    "(the keys allowed to sign captures)")
    return EvidenceSettings(allowed_signers=path, require_signatures=require)


def _inside(root: Path, value: str, pointer: str, what: str, error: Callable[[str, str], ConfigError]) -> Path:
    """``value`` (a path relative to ``root``) as an absolute path, which must
    lie inside the project (DESIGN §9: reads stay inside it)."""
    path = Path(os.path.normpath(root / value))
    if not Path(os.path.realpath(path)).is_relative_to(root):
        raise error(pointer, f"{what}: {value!r} leads outside the project directory; keep it in the repository")
    return path


def _reviews(block: dict, root: Path, captures_dir: Path, error: Callable[[str, str], ConfigError]) -> ReviewSettings:
    """The ``reviews`` block: the ledger folder and the allowed-signers file
    lie inside the project; the folder is neither the project itself nor
    inside or around the captures directory, so reviews, reports and
    captures never overlap."""
    folder = _inside(root, block.get("dir", "reviews"), "/reviews/dir", "reviews.dir", error)
    if folder == root or root.is_relative_to(folder) or folder.is_relative_to(captures_dir) \
            or captures_dir.is_relative_to(folder):
        raise error("/reviews/dir", f"reviews.dir: {block.get('dir')!r} would overlap the project or the captures "
                                    "directory; name a folder of its own such as `reviews`")
    signers = block.get("allowed_signers")
    return ReviewSettings(folder, None if signers is None else
                          _inside(root, signers, "/reviews/allowed_signers", "reviews.allowed_signers", error))


def relpath(path: Path | str, cwd: Path | str) -> str:
    """POSIX path of ``path`` relative to ``cwd`` (as findings print it, DESIGN §2.1), both
    absolute or relative to the process's directory. A path below ``cwd``
    is cut from the string (``os.path.relpath``'s answer, without splitting
    both paths into parts on every call); any other goes through
    ``os.path.relpath``, and one it cannot express (another drive) is
    returned whole."""
    target, start = os.path.abspath(path), os.path.abspath(cwd)
    prefix = dir_prefix(start)
    if target.startswith(prefix) and target != start:
        rel = target[len(prefix):]
    else:
        try:
            rel = os.path.relpath(target, start)
        except ValueError:
            rel = target
    return rel if os.sep == "/" else rel.replace(os.sep, "/")
