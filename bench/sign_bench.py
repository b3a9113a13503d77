#!/usr/bin/env python3
"""Signed evidence vs none: 10,000 facts / 1,000 reports / 1,000 captures of
100,000 characters (check_bench's shape (b)), every capture signed with an
Ed25519 key, checked with ``evidence.require_signatures`` vs the same
repository checked without evidence settings, alternating in one run.

Both commands read the same captures and reports; only the config differs
(``--config signed.yaml`` adds ``evidence``), so the ratio is the cost of
reading, parsing and verifying one signature file per capture (not per fact).
``--verifier ssh-keygen`` measures the fallback instead, by running the signed
check in a process where ``cryptography`` cannot be imported.

Usage, from the repository root, with the virtual environment's Python::

    python bench/sign_bench.py                 # about 2 minutes on a 2-core machine
    python bench/sign_bench.py --repeats 5 --keep /tmp/sb
    python bench/sign_bench.py --scale 0.01 --repeats 1   # smoke run: 10 sources, 10 reports
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

SHAPE = dict(sources=1000, reports=1000, facts_per_report=10, capture_chars=100_000)
#: Runs the check with ``cryptography`` made unimportable, so ``ssh-keygen`` verifies.
NO_CRYPTOGRAPHY = ("import sys; sys.modules['cryptography'] = None; from citelint.cli import main_exit; "
                   "sys.argv = ['citelint'] + sys.argv[1:]; main_exit()")


def prepare(root: Path, shape: dict[str, int]) -> tuple[gen.Repo | None, float]:
    """Generate ``shape`` in ``root`` (unless its marker records it), sign every capture, write signed.yaml."""
    recorded = {"signed": shape}
    if gen.read_marker(root, recorded) is not None:
        return None, 0.0
    t0 = time.perf_counter()
    shutil.rmtree(root, ignore_errors=True)
    repo = gen.write_repo(root, **shape)
    key = root / "bench_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key)], check=True)
    pub = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (root / "allowed_signers").write_text(f"bench@example.org namespaces=\"citelint\" {pub}\n")
    config = json.loads((root / "citelint.yaml").read_text())
    config["evidence"] = {"allowed_signers": "allowed_signers", "require_signatures": True}
    (root / "signed.yaml").write_text(json.dumps(config, indent=1) + "\n")
    from citelint.capture.sign import attest, load_key

    signing = load_key(str(key), None)
    # The generator wrote the whole store, as the trusted stage would: adopt signatures on all of it
    # (attest signs nothing unvouched by default).
    outcomes = attest(root / "captures", config["sources"], signing, vouch_all=True)
    signed = sum(o.status == "signed" for o in outcomes)
    assert signed == repo.capture_files, (signed, repo.capture_files)
    gen.write_marker(root, recorded, repo)
    return repo, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this directory")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the numbers of sources and reports by this factor (a smoke run: 0.01)")
    parser.add_argument("--verifier", choices=["cryptography", "ssh-keygen"], default="cryptography")
    args = parser.parse_args()
    tmp = None if args.keep else tempfile.TemporaryDirectory(prefix="citelint-sign-bench-")
    root = args.keep or Path(tmp.name) / "b"
    try:
        shape = {k: max(1, round(v * args.scale)) if k in ("sources", "reports") else v for k, v in SHAPE.items()}
        _, made = prepare(root, shape)
        signed_argv = ([tool("citelint"), "check", "--config", "signed.yaml"] if args.verifier == "cryptography"
                       else [sys.executable, "-c", NO_CRYPTOGRAPHY, "check", "--config", "signed.yaml"])
        m = alternate({"signed": Cmd(signed_argv, root), "unsigned": Cmd([tool("citelint"), "check"], root)},
                      args.repeats)
        facts = shape["reports"] * shape["facts_per_report"]
        print(f"{facts:,} facts / {shape['sources']:,} captures of {shape['capture_chars']:,} characters, each "
              f"signed (Ed25519), prepared in {made:.0f} s; verified with {args.verifier}: signed "
              f"{seconds(m['signed'].wall)} (cpu {seconds(m['signed'].cpu)}), unsigned {seconds(m['unsigned'].wall)} "
              f"(cpu {seconds(m['unsigned'].cpu)}); signed / unsigned {m.ratio('signed', 'unsigned')}, "
              f"{m.load_text()}")
    finally:
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    main()
