#!/usr/bin/env python3
"""What the step summary's added-only review list costs (``check --base REF
--summary-file F``): the base's reports are checked again, in memory, for the
review fingerprints they yield (citelint/check/basereports.py).

The bundled example (examples/expertqa: 11 reports, 37 cited facts) is
committed to a fresh git repository and checked with ``--base HEAD``, with
and without ``base_reports`` (what ``--summary-file`` turns on), alternating,
in one process; the medians and their ratio are printed.

Usage, from the repository root, with the virtual environment's Python::

    python bench/summary_base.py              # a few seconds
    python bench/summary_base.py --repeats 21
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from citelint.check.run import run_check  # noqa: E402  (after the path is set)
from citelint.config import load_config  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "expertqa"
        shutil.copytree(ROOT / "examples" / "expertqa", repo)
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
               "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}
        for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
            subprocess.run(["git", *command], cwd=repo, env=env, check=True)
        config = load_config(None, repo)
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.repeats):
            for flag in (False, True):
                start = time.perf_counter()
                result = run_check(config, [], repo, base="HEAD", base_reports=flag)
                times[flag].append(time.perf_counter() - start)
        fingerprints = len(result.base_fingerprints or ())
    plain, added = (statistics.median(times[f]) * 1000 for f in (False, True))
    print(f"check --base HEAD: {plain:.1f} ms; with the base's fingerprints ({fingerprints}): {added:.1f} ms "
          f"({added / plain:.2f}x, {args.repeats} runs each, medians)")


if __name__ == "__main__":
    main()
