"""``citelint review``: the semantic-review list, and judgments added to the ledger.

With no action it lists the accepted citations that have no review (label or
sentence, excerpt in context, source, capture date, fingerprint), as
`citelint check` accepts them. `--approve FP... --by NAME [--note TEXT]` and
`--reject FP... --by NAME --note TEXT` add one record per fingerprint to the
review ledger (docs/reviews.md) through the create-only evidence writer,
signed with `--sign-key`; nothing edits or deletes a record. `--stale`
lists the reviews whose fingerprint no accepted citation has any more, and
the ledger files that do not count.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, load_config
from citelint.config import Config, relpath
from citelint.escape import terminal

if TYPE_CHECKING:
    from citelint.capture.sign import SigningKey
    from citelint.evidence.ledger import Ledger
    from citelint.model import AcceptedFact, AcceptedQuotation, CheckResult
    from citelint.store.captures import Store

NAME = "review"

#: The ``format`` of ``citelint review --format json``.
LIST_FORMAT = "citelint.review-list/1"

EPILOG = """\
examples:
  citelint review                        list the accepted citations nobody has reviewed
  citelint review reports/q3.json        only those of one report
  citelint review --format json          the same list as JSON (each as `check --format json`
                                         lists it, with its fingerprint)
  citelint review --approve 3f9c2a71e0b4d5c8 --by ada@example.org \\
      --note "Q3 revenue in the table on page 2" --sign-key ~/.ssh/review_ed25519
                                         record that the excerpt supports its label, signed
  citelint review --reject 3f9c2a71 --by ada@example.org --note "that is Q2, not Q3"
                                         record that it does not (check reports CL903)
  citelint review --stale                reviews no accepted citation matches any more, and
                                         review files that do not count

A citation's fingerprint covers what the judgment is about (a fact: label,
source, capture digest, snippet; a quotation: its sentence with whitespace
collapsed and URLs removed, source, capture digest, quoted text): moving a
report keeps its reviews, and a changed snippet, sentence or capture
revision needs a new review. Any unique prefix of a fingerprint is accepted.
The latest review of a fingerprint (by `at`, then by record digest) counts.
With reviews.allowed_signers a review counts only when signed by a key
allowed for its reviewer in the namespace citelint-review, so --sign-key is
then required (and only --sign-key: $CITELINT_SIGN_KEY, the capture stage's
key, never signs a review). Reviews are append-only: a stale one cannot be
pruned, and a changed mind is a new review.

writes: with --approve or --reject only, new files under the reviews
directory (reviews/<fingerprint>/<sha256>.json and its .sig), create-only;
listing and --stale write nothing.

exit codes: 0 listed or recorded, 1 a record was refused by the evidence
writer, 2 usage or config error (an unknown or ambiguous fingerprint, --by or
--note missing, a key that cannot sign or is not allowed for --by)
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``review`` options and arguments to its parser."""
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="reports whose citations to list or judge (default: every report the config matches)")
    add_config_option(p)
    act = p.add_mutually_exclusive_group()
    act.add_argument("--approve", nargs="+", metavar="FP", default=[],
                     help="record that these citations (fingerprints, or unique prefixes) support what they are "
                          "cited for")
    act.add_argument("--reject", nargs="+", metavar="FP", default=[],
                     help="record that these citations do not support what they are cited for (needs --note)")
    act.add_argument("--stale", action="store_true",
                     help="list reviews whose fingerprint matches no accepted citation, and review files that "
                          "do not count")
    p.add_argument("--by", metavar="NAME", help="the reviewer (with reviews.allowed_signers: a principal of the "
                                                "signing key's line)")
    p.add_argument("--note", metavar="TEXT", help="what was checked against the source (required with --reject)")
    p.add_argument("--sign-key", metavar="FILE",
                   help="SSH private key to sign the review with (namespace citelint-review)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="listing format (default: text)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """List, judge or find stale reviews (see the module docstring).

    Returns EXIT_OK, EXIT_FINDINGS when the evidence writer refused a record,
    or EXIT_USAGE for a usage or config error (nothing is then written).
    """
    from citelint.check.run import run_check
    from citelint.errors import UsageError
    from citelint.evidence.ledger import load_ledger, relative

    judging = args.approve or args.reject
    if judging and not args.by:
        err.write("citelint: --approve and --reject need --by NAME (the reviewer)\n")
        return EXIT_USAGE
    if args.reject and not args.note:
        err.write("citelint: --reject needs --note TEXT: say what the excerpt does not support, for whoever "
                  "fixes the citation\n")
        return EXIT_USAGE
    if not judging and (args.by or args.note or args.sign_key):
        err.write("citelint: --by, --note and --sign-key go with --approve or --reject\n")
        return EXIT_USAGE
    if args.stale and args.paths:
        err.write("citelint: --stale compares the ledger with every report; it takes no PATH\n")
        return EXIT_USAGE
    config = load_config(args, err)
    cwd = Path.cwd()
    try:
        # Read once, and the check judges the citations by the same reading.
        ledger = load_ledger(config.reviews, relative(cwd))
        result = run_check(config, args.paths, cwd, jobs=1, ledger=ledger)
    except UsageError as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    citations = reviewable(result)
    try:
        if args.stale:
            return _stale(ledger, citations, config, cwd, out, args.format)
        if judging:
            return _judge(args, config, citations, out, err)
    except UsageError as exc:  # an unusable key, fingerprint or allowed-signers file: nothing written
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    return _list(result, [c for c in citations if c.reviewed is None], config, out, args.format)


def reviewable(result: CheckResult) -> list[AcceptedFact | AcceptedQuotation]:
    """The accepted citations that can be reviewed, in report order: cited
    facts, then quotations (an unavailable fact cites nothing)."""
    return [*(f for f in result.accepted if f.fingerprint is not None), *result.quotations]


def resolve(prefixes: list[str], fingerprints: list[str]) -> list[str]:
    """The full fingerprint each of ``prefixes`` names, in order, each once.

    Raises:
        UsageError: a prefix that is not hex, names no fingerprint, or names several.
    """
    from citelint.errors import UsageError

    chosen: list[str] = []
    known = sorted(set(fingerprints))
    for prefix in prefixes:
        low = prefix.lower()
        if not low or any(c not in "0123456789abcdef" for c in low):
            raise UsageError(f"{prefix!r} is not a fingerprint: hex digits, as `citelint review` lists them")
        hits = [fp for fp in known if fp.startswith(low)]
        if not hits:
            raise UsageError(f"no accepted citation has the fingerprint {low}; `citelint review` lists them (a "
                             "changed citation has a new fingerprint)")
        if len(hits) > 1:
            raise UsageError(f"the prefix {low} names {len(hits)} citations ({', '.join(h[:16] for h in hits[:4])}"
                             "…); give more of the fingerprint")
        if hits[0] not in chosen:
            chosen.append(hits[0])
    return chosen


def _refuse_outranked(root: Path, fingerprints: list[str], at: str) -> None:
    """Raise UsageError when a record of one of ``fingerprints`` is dated at or after ``at``:
    the judgment about to be written would not be the one that counts."""
    from citelint.errors import UsageError
    from citelint.store.record import time_key
    from citelint.store.reviews import ReviewCorrupt, read_folder

    for fp in fingerprints:
        files, _stray = read_folder(root, fp)
        later = [f.record.at for f in files if not isinstance(f.record, ReviewCorrupt)
                 and time_key(f.record.at) >= time_key(at)]
        if later:
            raise UsageError(f"{fp[:16]}: a review of it is dated {max(later, key=time_key)}, not before now, so "
                             "a judgment recorded now would not be the one that counts; nothing was written "
                             "(a record dated ahead does not count in `citelint check` until its time)")


def _judge(args: argparse.Namespace, config: Config, citations: list[AcceptedFact | AcceptedQuotation],
           out: TextIO, err: TextIO) -> int:
    """Write one record (and its signature) per named fingerprint."""
    from citelint.errors import UsageError
    from citelint.evidence.allowed_signers import load
    from citelint.evidence.ledger import NAMESPACE, key_allows
    from citelint.evidence.sshsig import armor
    from citelint.store.record import utc_now
    from citelint.store.reviews import ReviewCorrupt, record_bytes
    from citelint.store.writer import EvidenceRefused, write_review, write_review_signature

    fingerprints = resolve(args.approve or args.reject, [c.fingerprint for c in citations if c.fingerprint])
    verdict = "supports" if args.approve else "does-not-support"
    # Microseconds: an approval and a rejection in the same second must not tie (a tie goes by digest).
    at = utc_now(precise=True)
    _refuse_outranked(config.reviews.dir, fingerprints, at)
    key = _key(args.sign_key) if args.sign_key else None
    signers = config.reviews.allowed_signers
    if signers is not None:
        if key is None:
            raise UsageError(f"reviews.allowed_signers is set ({relpath(signers, Path.cwd())}), so a review counts "
                             "only when signed: pass --sign-key FILE (a key listed there for --by)")
        why = key_allows(load(signers, relpath(signers, Path.cwd()), "reviews.allowed_signers"),
                         key.public_key, args.by, at)
        if why:
            raise UsageError(f"this review would not count: {why}")
    try:
        records = [(fp, record_bytes(fp, verdict, args.by, at, args.note)) for fp in fingerprints]
    except ReviewCorrupt as exc:
        raise UsageError(f"--by or --note: {exc}") from None
    # Signed before anything is written: a key that cannot sign leaves the ledger as it was.
    signed = [(fp, data, key.sign(data, namespace=NAMESPACE) if key else None) for fp, data in records]
    refused = 0
    for fp, data, blob in signed:
        try:
            created, path = write_review(config.reviews.dir, fp, data)
            shown = relpath(path, Path.cwd())
            if blob is not None and key is not None:
                digest = path.name[:-len(".json")]
                write_review_signature(config.reviews.dir, fp, digest, key.public_key.fingerprint_hex(),
                                       armor(blob).encode("ascii"))
        except (EvidenceRefused, OSError) as exc:
            err.write(f"citelint: not recorded: {fp[:16]}: {terminal(str(exc))}\n")
            refused += 1
            continue
        state = "recorded" if created else "already recorded"
        out.write(f"{state}: {fp[:16]} {verdict} by {terminal(args.by)} ({terminal(shown)}"
                  f"{', signed' if blob is not None else ''})\n")
    if signers is None and refused < len(signed):
        err.write("citelint: note: reviews.allowed_signers is not set, so the ledger is advisory: anyone who can "
                  "commit can add a review (docs/reviews.md)\n")
    return EXIT_FINDINGS if refused else EXIT_OK


def _key(path: str) -> SigningKey:
    """The reviewer's key from ``--sign-key`` (never from the capture stage's
    ``$CITELINT_SIGN_KEY`` or ``capture.sign_key``: a pipeline holding the
    capture key must not be able to approve citations with it).

    Raises:
        UsageError: (a SignError) the key cannot be read or used.
    """
    from citelint.capture.sign import read_key

    return read_key(path, "--sign-key")


def _list(result: CheckResult, pending: list[AcceptedFact | AcceptedQuotation], config: Config, out: TextIO,
          fmt: str) -> int:
    """Print the unreviewed citations, text or JSON."""
    from citelint.output.json import accepted_to_dict

    if fmt == "json":
        json.dump({"format": LIST_FORMAT, "unreviewed": [accepted_to_dict(c) for c in pending],
                   "counts": {"unreviewed": len(pending), "reviewed": result.reviewed,
                              "rejected": result.rejected}}, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return EXIT_OK
    from citelint.store.captures import Store

    store = Store(config.captures_dir)
    for c in pending:
        out.write(_entry(c, store) + "\n")
    total = len(pending) + result.reviewed
    out.write(f"{len(pending)} of {total} accepted citation{'s' * (total != 1)} not reviewed"
              f" ({result.reviewed - result.rejected} reviewed: supports, {result.rejected} reviewed: does not "
              "support)\n")
    if pending:
        out.write("approve with: citelint review --approve FP... --by NAME --note \"what you checked\"\n")
    return EXIT_OK


def _entry(c: AcceptedFact | AcceptedQuotation, store: Store) -> str:
    """One unreviewed citation as text: fingerprint, place, what it is cited
    for, the excerpt in context, source and capture date (untrusted text escaped)."""
    from citelint.model import AcceptedFact
    from citelint.store.captures import capture_path, read_head_date

    fp = c.fingerprint or ""
    if isinstance(c, AcceptedFact):
        sha, what = c.capture_sha256 or "", f"label {terminal(c.label)}"
        before, after = c.context
        excerpt = f"…{terminal(before)}[{terminal(c.snippet or '')}]{terminal(after)}…"
        date = c.retrieved_at
    else:
        sha, what = c.capture, f"sentence {terminal(c.sentence)}"
        excerpt = f"[{terminal(c.text)}]"
        date = read_head_date(capture_path(store.root, c.source, sha), c.source, sha)
    return (f"{fp[:16]}  {terminal(c.path)}:{c.line}:{c.col}  {what}\n"
            f"    excerpt: {excerpt}\n"
            f"    source: {terminal(c.source or '')} (capture {sha[:12]}…, retrieved {date or 'unknown'})")


def _stale(ledger: Ledger, citations: list[AcceptedFact | AcceptedQuotation], config: Config, cwd: Path,
           out: TextIO, fmt: str) -> int:
    """Print the counting reviews no accepted citation matches, and the files that do not count."""
    from citelint.store.reviews import review_path

    ledger.read_all()
    current = {c.fingerprint for c in citations}
    stale = [r for r in ledger.counted if r.fingerprint not in current]
    if fmt == "json":
        json.dump({"format": LIST_FORMAT, "stale": [
            {"path": relpath(review_path(config.reviews.dir, r.fingerprint, r.digest), cwd),
             "fingerprint": r.fingerprint, "verdict": r.verdict, "by": r.by, "at": r.at, "note": r.note}
            for r in stale],
            "uncounted": [{"path": relpath(u.path, cwd), "why": u.why} for u in ledger.uncounted]},
            out, ensure_ascii=False, indent=2)
        out.write("\n")
        return EXIT_OK
    for r in stale:
        out.write(f"stale: {relpath(review_path(config.reviews.dir, r.fingerprint, r.digest), cwd)}: "
                  f"{r.verdict} by {terminal(r.by)} at {r.at}\n")
    for u in ledger.uncounted:
        out.write(f"does not count: {terminal(relpath(u.path, cwd))}: {terminal(u.why)}\n")
    out.write(f"{len(stale)} stale review{'s' * (len(stale) != 1)} (append-only: they stay, and match nothing), "
              f"{len(ledger.uncounted)} file{'s' * (len(ledger.uncounted) != 1)} that do not count\n")
    return EXIT_OK
