"""``citelint attest``: sign existing captures (trusted stage).

Verify existing captures of the named sources (default: every approved
source) and sign them with an SSH key: an in-toto statement in a signature
file beside each, one per key, never replaced. `check` accepts it when the
key is in evidence.allowed_signers (docs/evidence.md).

A signature vouches for a capture, and anyone who can open a pull request
can add a capture file; so by default only captures already signed by an
allowed key are signed again (key rotation). A capture nobody signed is
signed only when named (`SOURCE --revision SHA`) or with `--all`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from citelint.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_config_option, load_config
from citelint.config import relpath
from citelint.escape import terminal

if TYPE_CHECKING:
    from citelint.capture.sign import SignOutcome

NAME = "attest"

EPILOG = """\
examples:
  citelint attest --sign-key ~/.ssh/citelint_ed25519
                                         re-sign, with a new key, every capture an allowed key signed
  citelint attest https://example.org/q3.txt --revision 12a741c3eee5 --sign-key key
                                         sign one capture nobody signed yet, named by its digest
  citelint attest --all --sign-key key   sign every capture: only for a store written entirely
                                         by the trusted capture stage
  CITELINT_SIGN_KEY="$KEY" citelint attest
                                         the key from a CI secret (its text, or a path)

A signature vouches for a capture, and anyone who can open a pull request
can add one. By default attest signs only captures that already carry a good
signature from a key in evidence.allowed_signers (key rotation); one nobody
signed is refused, with the command that names it. The key is an
unencrypted OpenSSH private key (Ed25519, ECDSA or RSA): --sign-key, else
$CITELINT_SIGN_KEY, else capture.sign_key. Each capture is verified before
it is signed; one that does not verify is refused. Signing again with the
same key is "already signed". In-process with the cryptography library
(pip install 'citelint-provenance[sign]'), else with ssh-keygen.

writes: only new signature files beside the captures, create-only (never
replacing one or writing through a symlink, FIFO or directory at its name).

exit codes: 0 every capture signed (or already signed), 1 a capture was
refused, 2 usage or config error (no key, an unusable key or allowed-signers
file, --revision without SOURCE)
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``attest`` options and arguments to its parser."""
    p.add_argument("sources", nargs="*", metavar="SOURCE",
                   help="approved sources whose captures to sign (default: every approved source)")
    p.add_argument("--revision", action="append", default=[], metavar="SHA256",
                   help="sign this capture of the named SOURCE(s) even though nobody signed it yet: its digest, "
                        "or a unique prefix of at least 8 hex digits (repeatable)")
    p.add_argument("--all", action="store_true", dest="vouch_all",
                   help="sign every capture in the store, signed or not: this vouches for every capture file "
                        "present, so use it only to adopt signatures on a store written entirely by the trusted "
                        "capture stage")
    add_config_option(p)
    add_sign_key_option(p)


def add_sign_key_option(p: argparse.ArgumentParser) -> None:
    """``--sign-key FILE``, shared with ``capture``."""
    p.add_argument("--sign-key", metavar="FILE",
                   help="SSH private key to sign captures with (default: $CITELINT_SIGN_KEY, then capture.sign_key)")


def sign_line(outcome: SignOutcome) -> str:
    """One line per signed capture: what happened, the signature file, or why not."""
    what = f"{terminal(outcome.source)}" + (f" revision {outcome.sha256}" if outcome.sha256 else "")
    if outcome.failed:
        return f"not signed: {what}: {terminal(outcome.reason)}"
    key = outcome.path.name.split(".")[1] if outcome.path else ""
    return f"{outcome.status}: {what} (key {key})"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Sign the captures; print one line each, then counts.

    Returns EXIT_OK, EXIT_FINDINGS when a capture was refused, or EXIT_USAGE
    when no key is given or it cannot be used.
    """
    from citelint.capture.sign import SignError, attest, load_key
    from citelint.evidence.allowed_signers import SignersError, load

    if args.revision and not args.sources:
        err.write("citelint: --revision needs the SOURCE it is a capture of: "
                  "citelint attest SOURCE --revision SHA256\n")
        return EXIT_USAGE
    if args.revision and args.vouch_all:
        err.write("citelint: --revision and --all exclude each other\n")
        return EXIT_USAGE
    config = load_config(args, err)
    try:
        key = load_key(args.sign_key, config.capture.sign_key)
        if key is None:
            err.write("citelint: attest needs a key: --sign-key FILE, $CITELINT_SIGN_KEY or capture.sign_key\n")
            return EXIT_USAGE
        signers = config.evidence.allowed_signers
        entries = None if signers is None else \
            load(signers, relpath(signers, Path.cwd()), "evidence.allowed_signers")
        counts: dict[str, int] = {}
        for outcome in attest(config.captures_dir, config.sources, key, args.sources, revisions=args.revision,
                              vouch_all=args.vouch_all, entries=entries):
            out.write(sign_line(outcome) + "\n")
            counts[outcome.status] = counts.get(outcome.status, 0) + 1
    except (SignError, SignersError) as exc:
        err.write(f"citelint: {terminal(str(exc))}\n")
        return EXIT_USAGE
    order = ["signed", "already signed", "refused"]
    out.write(f"{sum(counts.values())} capture(s): " + (", ".join(f"{counts[s]} {s}" for s in order if s in counts)
                                                        or "none") + f"; key {key.public_key.fingerprint()}\n")
    return EXIT_FINDINGS if counts.get("refused") else EXIT_OK
