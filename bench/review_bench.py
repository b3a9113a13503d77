#!/usr/bin/env python3
"""The review ledger's cost (docs/reviews.md), each a ratio in one run.

1. Many facts: 10,000 facts / 1,000 reports / 1,000 captures of 20,000
   characters (check_bench's shape (b), smaller captures), checked with no
   reviews folder against the same repository with a ledger that reviews
   every fact: unsigned (``reviews.dir``), and signed by one Ed25519 key
   under ``reviews.allowed_signers``. The ledger is read once per run; each
   accepted fact then costs one fingerprint (a SHA-256 of canonical JSON)
   and a dict lookup.
2. A hook's call: one report of those 10 facts, checked by name, with the
   signed ledger of 10,000 reviews against no reviews folder: a fingerprint's
   folder is read only when one of the run's citations asks for it.
3. Start-up: one small report with no reviews folder against the same with
   a folder of one review: what the hook pays when a repository has a ledger
   (the ledger modules load only then; without the folder, one ``lstat``).

Usage, from the repository root, with the virtual environment's Python::

    python bench/review_bench.py                 # about 2 minutes on a 2-core machine
    python bench/review_bench.py --repeats 5 --keep /tmp/rb
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen
from measure import Cmd, alternate, seconds, tool

SHAPE = dict(sources=1000, reports=1000, facts_per_report=10, capture_chars=20_000)


def write_ledger(root: Path, folder: str, facts: list[dict[str, str]], key: Path | None) -> None:
    """A review of every fact in ``facts`` under ``root/folder``, signed with ``key`` when given."""
    from citelint.evidence.ledger import NAMESPACE
    from citelint.evidence.sshsig import armor
    from citelint.fingerprints import fact_fingerprint
    from citelint.store.reviews import record_bytes
    from citelint.store.writer import write_review, write_review_signature

    signing = None
    if key is not None:
        from citelint.capture.sign import read_key

        signing = read_key(str(key), "bench")
    for f in facts:
        fp = fact_fingerprint(f["label"], f["source"], f["captureSha256"], f["snippet"])
        data = record_bytes(fp, "supports", "bench@example.org", "2026-12-03T12:00:00Z", "bench")
        _, path = write_review(root / folder, fp, data)
        if signing is not None:
            write_review_signature(root / folder, fp, path.stem, signing.public_key.fingerprint_hex(),
                                   armor(signing.sign(data, namespace=NAMESPACE)).encode("ascii"))


def prepare(root: Path) -> float:
    """Generate the repository, its two ledgers and their configs (unless there already)."""
    marker = root / ".ready"
    if marker.exists():
        return 0.0
    t0 = time.perf_counter()
    shutil.rmtree(root, ignore_errors=True)
    gen.write_repo(root, **SHAPE)
    facts = [f for r in sorted((root / "reports").glob("*.json")) for f in json.loads(r.read_text())["facts"]]
    key = root / "review_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key)], check=True)
    pub = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (root / "review_signers").write_text(f'bench@example.org namespaces="citelint-review" {pub}\n')
    write_ledger(root, "ledger", facts, None)
    write_ledger(root, "signed", facts, key)
    config = json.loads((root / "citelint.yaml").read_text())
    for name, block in (("ledger.yaml", {"dir": "ledger"}),
                        ("signed.yaml", {"dir": "signed", "allowed_signers": "review_signers"})):
        (root / name).write_text(json.dumps({**config, "reviews": block}, indent=1) + "\n")
    # Start-up: one report of one fact, with and without a ledger of one review.
    small = root / "small"
    shutil.copytree(root / "captures", small / "captures")
    (small / "reports").mkdir()
    (small / "reports" / "r.json").write_text(json.dumps({"facts": facts[:1]}))
    (small / "citelint.yaml").write_text(json.dumps({**config, "reviews": {"dir": "none"}}) + "\n")
    (small / "reviewed.yaml").write_text(json.dumps(config) + "\n")
    write_ledger(small, "reviews", facts[:1], None)
    marker.write_text("")
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this directory")
    args = parser.parse_args()
    tmp = None if args.keep else tempfile.TemporaryDirectory(prefix="citelint-review-bench-")
    root = args.keep or Path(tmp.name) / "r"
    try:
        made = prepare(root)
        check = [tool("citelint"), "check"]
        m = alternate({"none": Cmd(check, root), "ledger": Cmd([*check, "--config", "ledger.yaml"], root),
                       "signed": Cmd([*check, "--config", "signed.yaml"], root)}, args.repeats)
        print(f"10,000 facts / 1,000 captures of 20,000 characters (prepared in {made:.0f} s): no reviews "
              f"{seconds(m['none'].wall)}, every fact reviewed {seconds(m['ledger'].wall)} "
              f"(ratio {m['ledger'].wall / m['none'].wall:.2f}), signed {seconds(m['signed'].wall)} "
              f"(ratio {m['signed'].wall / m['none'].wall:.2f}); peak RSS {m['none'].rss_mib:.0f} / "
              f"{m['ledger'].rss_mib:.0f} / {m['signed'].rss_mib:.0f} MiB")
        one = sorted((root / "reports").glob("*.json"))[0].relative_to(root).as_posix()
        h = alternate({"none": Cmd([*check, one], root), "signed": Cmd([*check, "--config", "signed.yaml", one], root)},
                      args.repeats * 4)
        print(f"one report of 10 facts checked by name: no reviews {seconds(h['none'].wall)}, signed ledger of "
              f"10,000 reviews (its 10 reviewed) {seconds(h['signed'].wall)} "
              f"(ratio {h['signed'].wall / h['none'].wall:.2f})")
        small = root / "small"
        s = alternate({"absent": Cmd(check, small), "one": Cmd([*check, "--config", "reviewed.yaml"], small)},
                      args.repeats * 4)
        print(f"one report of one fact: no reviews folder {seconds(s['absent'].wall)}, a ledger of one review "
              f"{seconds(s['one'].wall)} (ratio {s['one'].wall / s['absent'].wall:.2f})")
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    main()
