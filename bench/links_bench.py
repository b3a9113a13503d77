"""Link-governance throughput on the README corpus: citelint against the npm peer.

Run from the repository root::

    python bench/links_bench.py [--repeats 3] [--corpus ../shared/corpus/markdown-readmes] [--json out.json]

Both tools see the same files in the same run; each is timed best-of-N over
the whole corpus, from text in memory to a verdict for every link:

- citelint: per document, extract every followable link with cmark-gfm
  (inline, reference, autolink, bare/www, footnote, raw HTML), build an
  :class:`~citelint.links.Allowlist` from the document's own governed links
  (the README false-flag setup of DESIGN §2.4) and judge every link. The URL
  caches are cleared before each repeat. A second figure, "two-pass", renders
  each document twice (once to collect the allowlist, once to govern it), for
  readers who want the peer's shape exactly.
- ``llm-link-provenance`` (npm, installed into a temporary directory for this
  run only, never a dependency): per document ``buildAllowlist([text])`` then
  ``enforceLinkProvenance(text, allowlist)``, timed inside Node by
  ``bench/links_peer.mjs``. It governs inline links only.

The result is printed as a table and, with ``--json``, written as JSON.
No network is used except the npm registry for the peer install.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from citelint import links, urls  # noqa: E402

PEER = "llm-link-provenance@0.1.2"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "markdown-readmes"


def _clear_caches() -> None:
    urls.clear_caches()


def govern_corpus(texts: list[str]) -> dict[str, int]:
    """Extract, build each document's allowlist from its own links, judge. Returns counts."""
    counts = {"links": 0, "governed": 0, "CL201": 0, "CL202": 0, "CL203": 0}
    for text in texts:
        found = links.extract(text)
        allow = links.Allowlist(link.cited for link in found if link.category == "governed")
        for issue in links.judge(found, allow):
            counts[issue.rule] += 1
        counts["links"] += len(found)
        counts["governed"] += sum(1 for link in found if link.category == "governed")
    return counts


def govern_corpus_two_pass(texts: list[str]) -> None:
    """The peer's shape: one pass to build the allowlist, a full govern() pass to check."""
    for text in texts:
        allow = links.Allowlist(link.cited for link in links.extract(text) if link.category == "governed")
        links.govern(text, allow)


def time_citelint(texts: list[str], repeats: int, fn) -> float:
    best = float("inf")
    for _ in range(repeats):
        _clear_caches()
        start = time.perf_counter()
        fn(texts)
        best = min(best, time.perf_counter() - start)
    return best


class Peer:
    """``llm-link-provenance`` installed in a temporary directory for this run only."""

    def __init__(self) -> None:
        self.error: str | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="citelint-peer-")
        npm, self.node = shutil.which("npm"), shutil.which("node")
        if not npm or not self.node:
            self.error = "node/npm not found on PATH"
            return
        try:
            subprocess.run([npm, "init", "-y"], cwd=self._tmp.name, check=True, capture_output=True,
                           timeout=120)
            subprocess.run([npm, "install", "--no-audit", "--no-fund", PEER], cwd=self._tmp.name,
                           check=True, capture_output=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            self.error = f"npm install {PEER} failed: {detail.decode(errors='replace')[-500:]}"

    def run(self, files: list[Path], passes: int) -> dict:
        """Time the peer over ``files`` in one Node process: best of ``passes`` (the first warms the JIT)."""
        proc = subprocess.run(
            [self.node, str(ROOT / "bench" / "links_peer.mjs"), self._tmp.name, str(passes), *map(str, files)],
            capture_output=True, timeout=1800)
        if proc.returncode != 0:
            raise RuntimeError(f"peer script failed: {proc.stderr.decode(errors='replace')[-500:]}")
        return json.loads(proc.stdout)

    def close(self) -> None:
        self._tmp.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--no-peer", action="store_true", help="time citelint only")
    args = parser.parse_args(argv)

    files = sorted(args.corpus.glob("*.md"))
    if not files:
        print(f"no Markdown files in {args.corpus}", file=sys.stderr)
        return 2
    texts = [f.read_text(encoding="utf-8") for f in files]
    size = sum(f.stat().st_size for f in files)
    mb = size / 1e6

    counts = govern_corpus(texts)
    peer = None if args.no_peer else Peer()
    one = two = peer_best = float("inf")
    peer_removed = 0
    # Interleave the tools repeat by repeat, so that load from anything else
    # on the machine falls on both alike; keep the best time of each.
    try:
        for _ in range(args.repeats):
            one = min(one, time_citelint(texts, 1, govern_corpus))
            two = min(two, time_citelint(texts, 1, govern_corpus_two_pass))
            if peer is not None and peer.error is None:
                run = peer.run(files, 2)
                peer_best = min(peer_best, run["seconds"])
                peer_removed = run["removed"]
    finally:
        if peer is not None:
            peer.close()
    if peer is None:
        peer_result = {"error": "skipped (--no-peer)"}
    elif peer.error is not None:
        peer_result = {"error": peer.error}
    else:
        peer_result = {"package": PEER, "seconds": peer_best, "mb_per_s": mb / peer_best,
                       "removed": peer_removed}

    result = {
        "files": len(files), "bytes": size, "repeats": args.repeats,
        "citelint": {"seconds": one, "mb_per_s": mb / one, **counts},
        "citelint_two_pass": {"seconds": two, "mb_per_s": mb / two},
        "peer": peer_result,
    }
    print(f"corpus: {len(files)} files, {mb:.2f} MB; best of {args.repeats}")
    print(f"citelint (extract + allowlist + judge, every form): {one:7.3f} s  {mb / one:6.2f} MB/s  "
          f"{counts['links']} links ({counts['governed']} governed), "
          f"CL201 {counts['CL201']}, CL202 {counts['CL202']}, CL203 {counts['CL203']}")
    print(f"citelint two-pass (extract, then govern):           {two:7.3f} s  {mb / two:6.2f} MB/s")
    if "error" in peer_result:
        print(f"peer: not measured: {peer_result['error']}")
    else:
        p = peer_result
        print(f"{PEER} (buildAllowlist + enforceLinkProvenance, inline only): "
              f"{p['seconds']:7.3f} s  {p['mb_per_s']:6.2f} MB/s  removed {p['removed']}")
        result["ratio"] = result["citelint"]["mb_per_s"] / p["mb_per_s"]
        result["ratio_two_pass"] = result["citelint_two_pass"]["mb_per_s"] / p["mb_per_s"]
        print(f"ratio citelint/peer: {result['ratio']:.2f}x (two-pass {result['ratio_two_pass']:.2f}x)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
