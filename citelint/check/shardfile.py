"""The shard file: one shard's part of a check as JSON (``schemas/shard.schema.json``), and the merge.

A shard file records what decides the findings (K and N, citelint's version,
the config's digest, the paths and options given, the revision ``--base``
resolved to) and its part of the :class:`~citelint.model.CheckResult`,
losslessly: every field of every finding, notice, accepted fact and
quotation, with an ordering key each, the counts, the notes, the ledger
files its lookups read. :func:`merge` joins the N files into the one result
an unsharded run gives, in its order, so every formatter prints the same
bytes. The keys (docs/shards.md):

- a report's own findings and notices, and shard 1's run-level ones:
  ``[0, K, i]``, ``i`` their place in that shard's run (each file's come
  from one shard, so within a file this is the unsharded order);
- a citation's findings and notices: ``[1, source, capture digest, report
  order, fact index, i]``, the order in which one unsharded run verifies
  them (capture groups in (source, digest) order, then the facts in run
  order); the per-file cap of each rule is applied to these again here;
- an accepted fact: its report's order and its fact index (columns
  ``order`` and ``factIndex``); a quotation: ``[report order, i]``; a
  CL901 notice the merge makes: ``[3, source, capture digest, report
  order, fact index]``, the order one run makes them in.

The accepted facts are written as columns (one array per field), which
``json`` writes and reads in about half the time of one object per fact,
and the CL901 notices of the unplaced ones are not written at all: the
merge makes each from its accepted fact (label and review hints) where it
places it, as one run makes it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, cast

from citelint.check.loaded import FINDINGS_PER_RULE, LoadedReport, changed_note, more_finding
from citelint.check.reviewed import uncounted_notes, untracked_reviews
from citelint.check.shard import Shard
from citelint.config import Config, relpath
from citelint.errors import UsageError
from citelint.facts import review_message
from citelint.model import (
    RULES,
    SEVERITY_ORDER,
    AcceptedFact,
    AcceptedQuotation,
    CheckResult,
    Difference,
    Finding,
    Position,
    Review,
)

SHARD_FORMAT = "citelint.shard/2"
#: The packaged schema of the shard file.
SCHEMA = "shard.schema.json"

#: The counts a shard adds up (``CheckResult`` attributes).
COUNTS = ("files", "facts_cited", "facts_unavailable", "facts_invalid", "links", "links_governed",
          "links_grounded", "reviewed", "rejected")

#: The columns of a shard file's accepted facts (``accepted``: one array each, an entry per fact), in the
#: order :func:`_accepted_rows` gives each fact's values.
ACCEPTED_COLUMNS = ("order", "factIndex", "path", "line", "column", "state", "label", "source", "captureSha256",
                    "snippet", "offset", "reason", "review", "retrievedAt", "contextBefore", "contextAfter",
                    "reviewed")
#: Where a row of :func:`_accepted_rows` holds its fact's report path, line, state and review.
_PATH, _LINE, _STATE, _REVIEWED = (ACCEPTED_COLUMNS.index(name) for name in ("path", "line", "state", "reviewed"))

#: The empty-allowlist note a run gives when it governs links and no source grounds any.
ALLOWLIST_EMPTY = ("the link allowlist is empty (no approved source has a capture and links.allow is empty), so "
                   "every governed link is ungrounded; capture the sources first")


def config_digest(config: Config) -> str:
    """SHA-256 (64 hex) of the config file's bytes, or of ``no config`` for a config given as data.

    Raises:
        UsageError: the config file cannot be read.
    """
    if config.path is None:
        return hashlib.sha256(b"no config").hexdigest()
    try:
        return hashlib.sha256(Path(config.path).read_bytes()).hexdigest()
    except OSError as exc:
        raise UsageError(f"cannot read the config {config.path}: {exc.strerror or exc}") from None


def run_identity(config: Config, cwd: Path, paths: Sequence[str], base: str | None, base_missing: str,
                 base_commit: str | None, reports: str) -> dict[str, Any]:
    """What decides a shard's findings besides its K: the config's digest, the
    working directory relative to the project root (findings name files from
    it), the paths given, the ``--base`` options with the commit REF
    resolved to, and ``reports``, the digest of the reports the shard found
    (:meth:`~citelint.check.shard.Shard.note_inputs`), and ``reviewNotices``, whether CL901 is a
    notice (the merge then makes the notices of the accepted facts it places). Shards merge only
    when theirs are equal."""
    return {"config": config_digest(config), "directory": relpath(cwd, config.root), "paths": list(paths),
            "base": base, "baseMissing": base_missing, "baseCommit": base_commit, "reports": reports,
            "reviewNotices": config.severity("CL901") == "notice"}


def _finding(f: Finding, key: list[Any]) -> dict[str, Any]:
    return {"key": key, "path": f.path, "line": f.line, "column": f.col, "endLine": f.end_line,
            "endColumn": f.end_col, "rule": f.rule, "severity": f.severity, "message": f.message,
            "capture": f.capture, "factIndex": f.fact_index,
            "difference": None if f.difference is None else f.difference._asdict()}


def _review(r: Review | None) -> dict[str, Any] | None:
    return None if r is None else {"verdict": r.verdict, "by": r.by, "at": r.at, "note": r.note}


def shard_document(result: CheckResult, shard: Shard, *, config: Config, cwd: Path, version: str,
                   identity: Mapping[str, Any]) -> dict[str, Any]:
    """Shard ``shard``'s file as a JSON-ready dict (``schemas/shard.schema.json``):
    ``result`` is what :func:`citelint.check.run.run_check` returned for it,
    ``identity`` :func:`run_identity` of the run, ``version`` citelint's."""
    k = shard.k
    findings = [_finding(f, [0, k, i]) for i, f in enumerate(result.findings)]
    notices = [_finding(f, [0, k, i]) for i, f in enumerate(result.notices)]

    def cited_key(f: Finding, i: int) -> list[Any]:
        source, digest = shard.group_of[(f.path, cast(int, f.fact_index))]
        return [1, source, digest, shard.orders[f.path], f.fact_index, i]

    findings += [_finding(f, cited_key(f, i)) for i, f in enumerate(shard.cited.findings)]
    notices += [_finding(f, cited_key(f, i)) for i, f in enumerate(shard.cited.notices)]
    # Accepted facts at line 0 are the merge's to place (their CL901 notices its to make): null line here.
    accepted = result.accepted
    unplaced = {a.path for a in accepted if not a.line}
    place = [{"path": path, "kind": shard.loaded[path].kind, "factsPointer": shard.loaded[path].facts_ptr,
              "digest": shard.loaded[path].digest} for path in sorted(unplaced)]
    quotations = [{"key": [shard.orders[q.path], i], "path": q.path, "line": q.line, "column": q.col,
                   "sentence": q.sentence, "text": q.text, "source": q.source, "capture": q.capture,
                   "label": q.label, "insertions": list(q.insertions), "form": q.form,
                   "reviewed": _review(q.reviewed)} for i, q in enumerate(result.quotations)]
    reviews = CheckResult()
    uncounted: list[dict[str, str]] = []
    if shard.ledger is not None:
        untracked_reviews(shard.ledger, config, cwd, reviews)
        uncounted = [{"path": relpath(path, cwd), "why": why, "folder": _folder(path, config)}
                     for path, why in shard.ledger.uncounted]
    return {
        "format": SHARD_FORMAT,
        "citelint": version,
        "shard": {"k": k, "n": shard.n},
        "run": dict(identity),
        "counts": {name: getattr(result, name) for name in COUNTS},
        "findings": findings,
        "notices": notices,
        "more": [{"path": path, "rule": rule, "count": count} for (path, rule), count in sorted(shard.extra.items())],
        "accepted": _accepted_columns(accepted, shard.orders),
        "place": place,
        "quotations": quotations,
        "warnings": list(result.warnings_text) if shard.first else [],
        "skipped": [{"path": path, "why": why} for path, why in result.skipped] if shard.first else [],
        "allowlistEmpty": shard.allowlist_empty,
        "addedNote": shard.added_note,
        "changed": shard.changed,
        "baseFingerprints": None if result.base_fingerprints is None else sorted(result.base_fingerprints),
        "reviews": {"untracked": [_finding(f, [0, k, i]) for i, f in enumerate(reviews.findings)],
                    "uncounted": uncounted},
    }


def _accepted_columns(accepted: Sequence[AcceptedFact], orders: Mapping[str, int]) -> dict[str, list[Any]]:
    """The accepted facts as the shard file's columns (:data:`ACCEPTED_COLUMNS`); line 0 (unplaced) is null."""
    return {"order": [orders[a.path] for a in accepted], "factIndex": [a.fact_index for a in accepted],
            "path": [a.path for a in accepted], "line": [a.line or None for a in accepted],
            "column": [a.col or None for a in accepted], "state": [a.state for a in accepted],
            "label": [a.label for a in accepted], "source": [a.source for a in accepted],
            "captureSha256": [a.capture_sha256 for a in accepted], "snippet": [a.snippet for a in accepted],
            "offset": [a.offset for a in accepted], "reason": [a.reason for a in accepted],
            "review": [a.review for a in accepted], "retrievedAt": [a.retrieved_at for a in accepted],
            "contextBefore": [a.context[0] for a in accepted], "contextAfter": [a.context[1] for a in accepted],
            "reviewed": [_review(a.reviewed) for a in accepted]}


def _accepted_rows(columns: Mapping[str, list[Any]]) -> list[tuple[Any, ...]]:
    """A shard file's accepted facts (its columns, of equal length) as one tuple each, the values in
    :data:`ACCEPTED_COLUMNS` order."""
    return list(zip(*(columns[name] for name in ACCEPTED_COLUMNS)))


def _folder(path: Path | str, config: Config) -> str:
    """The fingerprint folder an uncounted ledger file is in ('' for an entry of the ledger itself)."""
    parts = PurePosixPath(relpath(path, config.reviews.dir)).parts
    return parts[0] if len(parts) > 1 else ""


def read_shard(data: bytes, name: str) -> dict[str, Any]:
    """The shard file ``name`` (its bytes ``data``) parsed and checked against
    ``schemas/shard.schema.json``.

    Raises:
        UsageError: it is not UTF-8 JSON, or not a shard file (naming ``name`` and why).
    """
    from citelint.reports.schema import quick_valid

    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{name} is not a shard file: it is not UTF-8 JSON ({exc})") from None
    except RecursionError:
        raise UsageError(f"{name} is not a shard file: its JSON is nested too deeply") from None
    if isinstance(doc, dict) and doc.get("format") != SHARD_FORMAT:
        raise UsageError(f"{name} is not a shard file: its format is {doc.get('format')!r}, not {SHARD_FORMAT!r} "
                         "(write one with `citelint check --shard K/N`)")
    if not quick_valid(SCHEMA, doc):
        from citelint.reports.schema import shard_validator

        # The quick check only says yes or "ask jsonschema"; jsonschema words the refusal.
        error = next(iter(sorted(shard_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))), None)
        if error is not None:
            where = "/" + "/".join(str(p) for p in error.absolute_path)
            raise UsageError(f"{name} is not a shard file (schemas/shard.schema.json): at {where}: {error.message}")
    lone = _lone_surrogate(doc)
    if lone is not None:
        raise UsageError(f"{name} is not a shard file: the string at {lone} holds a lone surrogate (an escape "
                         "such as \\ud800 with no pair), which no check writes there")
    k = doc["shard"]["k"]
    for field, items in (("findings", doc["findings"]), ("notices", doc["notices"]),
                         ("reviews/untracked", doc["reviews"]["untracked"])):
        for i, item in enumerate(items):
            if not _key_valid(item["key"], k, cited=field != "reviews/untracked"):
                raise UsageError(f"{name} is not a shard file: at /{field}/{i}/key: {item['key']!r} is not [0, {k}, "
                                 "i] (a report's own or a run-level item) or [1, source, capture digest, report "
                                 "order, fact index, i] (a citation's)")
    # The schema types each column; the merge zips them into one row per fact, which a short one would cut.
    accepted = doc["accepted"]
    lengths = {column: len(values) for column, values in accepted.items()}
    if len(set(lengths.values())) > 1:
        raise UsageError(f"{name} is not a shard file: at /accepted: its columns differ in length "
                         f"({', '.join(f'{column} {n}' for column, n in lengths.items())}), one entry per fact each")
    for i, (line, column) in enumerate(zip(accepted["line"], accepted["column"])):
        if (line is None) != (column is None):
            raise UsageError(f"{name} is not a shard file: at /accepted/line/{i}: an accepted fact's line and "
                             "column are both null (left for the merge to place) or both numbers")
    # The schema allows any CLxxx; the formatters look each rule up in the catalog.
    for field, items in (("findings", doc["findings"]), ("notices", doc["notices"]), ("more", doc["more"]),
                         ("reviews/untracked", doc["reviews"]["untracked"])):
        for i, item in enumerate(items):
            if item["rule"] not in RULES:
                raise UsageError(f"{name} is not a shard file: at /{field}/{i}/rule: {item['rule']} is no rule "
                                 "of this citelint")
    return cast(dict[str, Any], doc)


def _key_valid(key: list[Any], k: int, *, cited: bool) -> bool:
    """True when ``key`` is an ordering key shard ``k`` writes (docs/shards.md):
    ``[0, k, i]``, or with ``cited`` ``[1, source, digest, order, index, i]``."""
    if key[0] == 0 and len(key) == 3:
        return key[1] == k and type(key[2]) is int
    return (cited and key[0] == 1 and len(key) == 6 and all(type(part) is str for part in key[1:3])
            and all(type(part) is int for part in key[3:]))


_SURROGATE = re.compile("[\ud800-\udfff]")
#: Fields that hold a file's path, which may hold lone surrogates (a name's bytes not UTF-8, as the OS gives it).
_PATH_FIELDS = frozenset(("path", "changed"))


def _lone_surrogate(value: Any, at: str = "") -> str | None:
    """The JSON pointer of the first string in ``value`` that holds a lone
    surrogate outside a path field, or None. Reports holding one are refused
    (CL001), so no message, snippet or source a check writes holds one; the
    formatters could not print it."""
    if isinstance(value, str):
        return (at or "/") if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        if key in _PATH_FIELDS:
            continue
        found = _lone_surrogate(item, f"{at}/{key}")
        if found is not None:
            return found
    return None


class Merged:
    """The result of merging a run's shard files: ``result`` (as one unsharded
    run gives it) and ``run``, the shards' :func:`run_identity`."""

    def __init__(self, result: CheckResult, run: dict[str, Any]):
        self.result, self.run = result, run


def merge(shards: Sequence[tuple[str, dict[str, Any]]], version: str, *, summary: bool = False,
          cwd: Path | None = None) -> Merged:
    """Join ``shards`` ((file name, :func:`read_shard` document) pairs, in any
    order) into one result. ``version`` is this citelint's; ``summary`` True
    when a step summary is printed (a run making one notes a base whose
    reports could not be read, as one unsharded run does). The notices and
    accepted facts a shard left unplaced (``place``) are placed when the
    result's notices or accepted facts are first read, from the report files
    as found from ``cwd`` (the directory the shards ran in; default the
    current one), as one run places them: a file whose bytes are not the
    ones checked puts them at 1:1 and is named in the run's note.

    Raises:
        UsageError: the files are not one whole run: N differs, a K is missing
            or repeated, or the citelint version or run (config digest,
            directory, paths, ``--base``) differs; the message names the file
            and what differs. Also an unplaced item that no ``place`` entry covers.
    """
    if not shards:
        raise UsageError("give every shard file of the run (citelint merge SHARD...)")
    first_name, first = shards[0]
    n = first["shard"]["n"]
    seen: dict[int, str] = {}
    for name, doc in shards:
        if doc["citelint"] != version:
            raise UsageError(f"{name} was written by citelint {doc['citelint']}, this is {version}: run every "
                             "shard and the merge with one version")
        if doc["shard"]["n"] != n:
            raise UsageError(f"{name} is shard {doc['shard']['k']}/{doc['shard']['n']}, but {first_name} is one "
                             f"of {n}: merge the shards of one run")
        for field, value in doc["run"].items():
            if first["run"].get(field) != value:
                raise UsageError(f"{name} differs from {first_name} in {_RUN_FIELDS.get(field, field)} "
                                 f"({value!r}, not {first['run'].get(field)!r}): merge the shards of one run")
        k = doc["shard"]["k"]
        if k > n:
            raise UsageError(f"{name} is shard {k}/{n}: K must be from 1 to N")
        if k in seen:
            raise UsageError(f"{name} and {seen[k]} are both shard {k}/{n}: give each shard once")
        seen[k] = name
    if len(seen) < n:
        # The first few missing, found in at most len(seen) + 5 steps: N is the file's, however large.
        count, k = n - len(seen), 1
        missing: list[int] = []
        while len(missing) < min(count, 5):
            if k not in seen:
                missing.append(k)
            k += 1
        raise UsageError(f"shard{'s' * (count > 1)} {', '.join(f'{k}/{n}' for k in missing)}"
                         f"{f' and {count - len(missing)} more' if count > len(missing) else ''} "
                         f"missing: give all {n} shard files of the run")
    docs = [doc for _, doc in sorted(shards, key=lambda item: item[1]["shard"]["k"])]
    added = next((d["addedNote"] for d in docs if d["addedNote"]), None) if summary else None
    try:
        return Merged(_joined(docs, added, Path.cwd() if cwd is None else cwd, first["run"]["reviewNotices"]),
                      dict(first["run"]))
    except TypeError:
        # Keys of one kind hold a string in one file and a number in another: no file citelint wrote.
        raise UsageError(f"the ordering keys of {', '.join(name for name, _ in shards)} do not agree: "
                         "these are not shard files of one run as citelint writes them") from None


#: How a refusal names each field of a shard's run.
_RUN_FIELDS = {"config": "the config's digest", "directory": "the directory it ran in", "paths": "the paths given",
               "base": "--base", "baseMissing": "--base-missing", "baseCommit": "the commit --base resolved to",
               "reports": "the reports it found (their paths, or a fact report's bytes)",
               "reviewNotices": "whether CL901 is a notice"}


def _joined(docs: Sequence[dict[str, Any]], added: str | None, cwd: Path, review: bool) -> CheckResult:
    """The shards' documents (in K order) as one :class:`CheckResult`; ``added``
    is the note on the base's reports that the run gives, or None; unplaced
    accepted facts are placed from the report files under ``cwd`` when first
    read, with ``review`` (CL901 is a notice) the CL901 notice of each cited
    one that no review judges."""
    result = CheckResult()
    for name in COUNTS:
        setattr(result, name, sum(d["counts"][name] for d in docs))
    main = [item for d in docs for item in d["findings"] if item["key"][0] == 0]
    cited = [item for d in docs for item in d["findings"] if item["key"][0] == 1]
    extra: dict[tuple[str, str], int] = {}
    for d in docs:
        for more in d["more"]:
            key = (more["path"], more["rule"])
            extra[key] = extra.get(key, 0) + more["count"]
    # A review two shards' citations both counted is one finding, as in one run.
    untracked = {(f["path"], f["message"]): f for d in docs for f in d["reviews"]["untracked"]}
    findings = [(item["key"], _to_finding(item)) for item in main + list(untracked.values())]
    findings += _capped(cited, extra)
    findings.sort(key=lambda kf: (SEVERITY_ORDER[kf[1].severity], kf[1][:4], kf[0]))
    result.findings = [f for _, f in findings]
    notice_items = [item for d in docs for item in d["notices"]]
    # Rows in (report order, fact index) order, as one run lists them.
    rows = sorted((row for d in docs for row in _accepted_rows(d["accepted"])), key=lambda row: row[:2])
    placing = _Placing(docs, cwd)
    made = placing.needed(rows, review)
    if made is None:
        _list(result, notice_items, rows, placing, review)
    else:
        # Placed when a formatter reads them (text output only counts the notices).
        result.defer(len(notice_items) + made, functools.partial(_list, notice_items=notice_items, rows=rows,
                                                                 placing=placing, review=review))
    quotations = sorted((item for d in docs for item in d["quotations"]), key=lambda item: item["key"])
    result.quotations = [AcceptedQuotation(q["path"], q["line"], q["column"], q["sentence"], q["text"], q["source"],
                                           q["capture"], q["label"], tuple(q["insertions"]), q["form"],
                                           _to_review(q["reviewed"])) for q in quotations]
    changed = sorted({path for d in docs for path in d["changed"]})
    placing.note_at, placing.changed = len(docs[0]["warnings"]), changed
    result.warnings_text = list(docs[0]["warnings"]) + ([changed_note(changed)] if changed else [])
    result.warnings_text += uncounted_notes(_uncounted(docs, result))
    if added is not None:
        result.warnings_text.append(added)
    if result.links_governed and any(d["allowlistEmpty"] for d in docs):
        result.warnings_text.append(ALLOWLIST_EMPTY)
    result.skipped = [(item["path"], item["why"]) for item in docs[0]["skipped"]]
    if docs[0]["baseFingerprints"] is not None:
        result.base_fingerprints = frozenset(fp for d in docs for fp in d["baseFingerprints"] or ())
    return result


class _Placing:
    """Places the accepted facts shards left unplaced (``line`` null), as one run places them
    and their notices: each report of ``place`` loaded again from its file under ``cwd``, checked
    against the digest of the bytes the shards checked (:class:`LoadedReport`)."""

    def __init__(self, docs: Sequence[dict[str, Any]], cwd: Path):
        self.reports: dict[str, LoadedReport] = {}
        for d in docs:
            for r in d["place"]:
                self.reports.setdefault(r["path"], LoadedReport(0, r["path"], r["kind"], None, {}, r["factsPointer"],
                                                                path=str(cwd / r["path"]), digest=r["digest"]))
        #: The run's note on changed reports: its place in the warnings and the reports the shards noted.
        self.note_at, self.changed = 0, cast(list[str], [])

    def needed(self, rows: list[tuple[Any, ...]], review: bool) -> int | None:
        """None when every accepted fact of ``rows`` (:func:`_accepted_rows`) has its
        place; else how many CL901 notices placing them makes (``review``: CL901 is a notice).

        Raises:
            UsageError: one is in a file no shard said how to place.
        """
        unplaced = made = 0
        for row in rows:
            if row[_LINE] is None:
                if row[_PATH] not in self.reports:
                    raise UsageError(f"an accepted fact of {row[_PATH]!r} has no place and no shard says how to place "
                                     "it: these are not shard files as citelint writes them")
                unplaced += 1
                if review and _noticed(row):
                    made += 1
        return made if unplaced else None

    def position(self, path: str, index: int) -> Position:
        """The place of fact ``index`` in the report ``path`` (one of ``place``)."""
        report = self.reports[path]
        return report.locate(report.pointer(index))

    def note(self, result: CheckResult) -> None:
        """Name the reports found changed while placing in the run's note (added, or widened)."""
        found = sorted(set(self.changed) | {path for path, r in self.reports.items() if r.changed})
        if found == self.changed:
            return
        if self.changed:
            result.warnings_text[self.note_at] = changed_note(found)
        else:
            result.warnings_text.insert(self.note_at, changed_note(found))
        self.changed = found


def _noticed(row: tuple[Any, ...]) -> bool:
    """True when the accepted fact ``row`` (unplaced) has a CL901 notice when CL901 is a
    notice: it is cited and no review judges it (as :class:`~citelint.check.emission.Emission` has it)."""
    return row[_STATE] == "cited" and row[_REVIEWED] is None


def _list(result: CheckResult, notice_items: list[dict[str, Any]], rows: list[tuple[Any, ...]],
          placing: _Placing, review: bool) -> None:
    """Set ``result``'s notices and accepted facts from the shards' items and accepted rows (in
    key order), placed; with ``review``, each unplaced accepted fact's CL901 notice made as one run
    makes it, at its fact, from its label and review hints."""
    notices = [(item["key"], _to_finding(item)) for item in notice_items]
    accepted = []
    for row in rows:
        order, index, path, line, col, state, label, source, capture, snippet, offset, reason, hints, at, before, \
            after, reviewed = row
        if line is None:
            pos = placing.position(path, index)
            line, col = pos.line, pos.col
            if review and _noticed(row):
                # Findings compare by place and rule alone, so notices tied at 1:1 (a changed report)
                # print in list order: one run's, which makes them as it verifies (by source, digest).
                notices.append(([3, source, capture, order, index], Finding(path, line, col, "CL901", "notice",
                                                            review_message(label, hints), pos.end_line,
                                                            pos.end_col, None, index)))
        accepted.append(AcceptedFact(path, line, col, state, label, source, capture, snippet, offset, reason,
                                     tuple(hints), at, (before, after), index, _to_review(reviewed)))
    notices.sort(key=lambda kf: (kf[1][:4], kf[0]))
    result.notices = [f for _, f in notices]
    result.accepted = accepted
    placing.note(result)


def _capped(cited: list[dict[str, Any]], extra: Mapping[tuple[str, str], int]) -> list[tuple[list[Any], Finding]]:
    """The citations' findings with each rule capped per file as one run caps
    them: the first :data:`FINDINGS_PER_RULE` in run order shown, then one
    finding counting the rest at the first not shown (notices are never capped)."""
    cited = sorted(cited, key=lambda item: item["key"])
    extra = dict(extra)
    shown: dict[tuple[str, str], int] = {}
    first: dict[tuple[str, str], Finding] = {}
    out: list[tuple[list[Any], Finding]] = []
    for item in cited:
        finding = _to_finding(item)
        key = (finding.path, finding.rule)
        if shown.get(key, 0) >= FINDINGS_PER_RULE:
            first.setdefault(key, finding)
            extra[key] = extra.get(key, 0) + 1
            continue
        shown[key] = shown.get(key, 0) + 1
        out.append((item["key"], finding))
    for (path, rule), hidden in sorted(first.items()):
        count = extra[(path, rule)]
        pos = Position(hidden.line, hidden.col, hidden.end_line, hidden.end_col)
        out.append(([2, path, rule], more_finding(path, rule, hidden.severity, count, pos)))
    return out


def _uncounted(docs: Sequence[dict[str, Any]], result: CheckResult) -> list[tuple[str, str]]:
    """The ledger files the shards' lookups read that do not count, in the
    order one run reads them: the ledger's own stray entries, then each
    fingerprint folder in the order its first citation is judged (prose and
    link quotations of Markdown reports first, then facts by capture group)."""
    stray = [(u["path"], u["why"]) for u in docs[0]["reviews"]["uncounted"] if not u["folder"]]
    by_folder: dict[str, list[tuple[str, str]]] = {}
    for d in docs:
        for u in d["reviews"]["uncounted"]:
            folder = u["folder"]
            if folder and folder not in by_folder:
                by_folder[folder] = [(v["path"], v["why"]) for v in d["reviews"]["uncounted"] if v["folder"] == folder]
    if not by_folder:
        return stray
    # Quotations are judged in their run order, then facts in capture-group order (the list is in run order).
    rank: dict[str, tuple[Any, ...]] = {}
    for i, q in enumerate(result.quotations):
        rank.setdefault(q.fingerprint, (0, "", "", i))
    for i, a in enumerate(result.accepted):
        if a.state == "cited" and a.fingerprint is not None:
            rank.setdefault(a.fingerprint, (1, a.source or "", a.capture_sha256 or "", i))
    order = sorted(by_folder, key=lambda fp: (rank.get(fp, (2, "", "", 0)), fp))
    return stray + [entry for fp in order for entry in by_folder[fp]]


def _to_finding(item: Mapping[str, Any]) -> Finding:
    d = item["difference"]
    return Finding(item["path"], item["line"], item["column"], item["rule"], item["severity"], item["message"],
                   item["endLine"], item["endColumn"], item["capture"], item["factIndex"],
                   None if d is None else Difference(d["before"], d["cited"], d["captured"], d["aligned"]))


def _to_review(r: Mapping[str, Any] | None) -> Review | None:
    return None if r is None else Review(r["verdict"], r["by"], r["at"], r["note"])
