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
- "with detection": ``check()`` as a check that verifies claims in prose
  runs it (cmark's XML from the same parse), plus the detection of prose
  quotations (``quotes``) or of quotations and cited numbers (``claims``),
  every governed link a capture-grounded citation; see :func:`claims_corpus`
  for what is not included.
- ``llm-link-provenance`` (npm, installed into a temporary directory for this
  run only, never a dependency): per document ``buildAllowlist([text])`` then
  ``enforceLinkProvenance(text, allowlist)``, timed inside Node by
  ``bench/links_peer.mjs``. It governs inline links only.

Each repeat also times the stages of ``check()`` on their own (CPU): cmark
(one render per document, without source positions), the allowlists (the
identity of every source), the scan (reading every tag of cmark's output,
rendered beforehand) and the rest (deciding each link, rendering again and
locating what has a finding); and, apart, ``check()`` over only the
documents with a finding, so a ceiling can be told from overhead.

The result is printed as a table and, with ``--json``, written as JSON.
No network is used except the npm registry for the peer install. With
``PYTHONPATH`` set, citelint is imported from there (to compare two
checkouts with one script); the path imported is printed.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT))

import citelint  # noqa: E402
from citelint import links, urls  # noqa: E402
from citelint.links import (  # noqa: E402
    claims as link_claims,
    prose,
    render,
)

PEER = "llm-link-provenance@0.1.2"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "markdown-readmes"


def _clear_caches() -> None:
    urls.clear_caches()


def sources_of(texts: list[str]) -> list[list[str]]:
    """Each document's governed link URLs: the "captured sources" of the README setup.

    Computed once, outside the timings: in `citelint check` the sources come
    from the config's `sources` list, not from the document.
    """
    return [[link.cited for link in links.extract(text) if link.category == "governed"] for text in texts]


def check_corpus(texts: list[str], sources: list[list[str]]) -> dict[str, int]:
    """What `citelint check` does per Markdown report: build the allowlist, check every link."""
    counts = {"links": 0, "governed": 0, "grounded": 0, "CL201": 0, "CL202": 0, "CL203": 0}
    for text, srcs in zip(texts, sources):
        report = links.check(text, links.LinkEvidence(links.Allowlist(srcs)))
        counts["links"] += report.links
        counts["governed"] += report.governed
        counts["grounded"] += report.grounded
        for issue in report.issues:
            counts[issue.rule] += 1
    return counts


def claims_corpus(texts: list[str], sources: list[list[str]], numbers: bool = True) -> None:
    """check() as `citelint check` runs it when claims in prose (CL205, CL206) are verified:
    cmark's XML rendered from the parse the HTML comes from when that HTML may hold a claim
    (``prose.may_claim``), then, for such a document, the prose quotations and
    (with ``numbers``) the cited numbers detected with their citations and positions
    (``prose.claims``, as ``links.check_claims`` calls it: since ``cited``, only the quotations
    with a citation, from the XML of the blocks ``claim_lines(…, cited=True)`` keeps, as
    ``citelint check`` renders it), every governed link a citation a capture grounds (the
    README setup: each document's own links are its captured sources).
    Not included: reading the captures and searching them, which depends on what they hold
    (the corpus has none; bench/expertqa_claims.py times whole checks with real captures)."""
    detect = getattr(prose, "claims", None)
    may_claim = getattr(prose, "may_claim", None)  # older checkouts render the XML of every document
    try:  # older checkouts render the XML of the whole document
        from citelint.links.claimlines import claim_lines
    except ImportError:
        claim_lines = None
    # As check_claims reads (cited=True: the quotations with a citation only, the XML of the blocks
    # that may hold one); older checkouts read every quotation.
    cited = {"cited": True} if detect is not None and "cited" in inspect.signature(detect).parameters else {}
    for text, srcs in zip(texts, sources):
        evidence = links.LinkEvidence(links.Allowlist(srcs))
        if detect is None:
            # an older checkout (PYTHONPATH): its check_claims called these two, each reading the document
            links.check(text, evidence)
            prose.quotations(text)
            if numbers:
                prose.cited_numbers(text)
            continue
        want = True if may_claim is None else functools.partial(may_claim, quotes=True, numbers=numbers,
                                                                markdown=text)
        if claim_lines is None:
            report = links.check(text, evidence, xml=want)
        else:  # the XML of only the blocks whose source lines may hold a claim
            report = links.check(text, evidence, xml=want, keep=claim_lines(text, quotes=True, numbers=numbers,
                                                                            **cited))
        if report.xml:  # "" when cmark's HTML shows no claim (what citelint check skips too)
            detect(text, numbers=numbers, citable=link_claims.capture_citable(evidence), xml=report.xml, **cited)


def quotes_corpus(texts: list[str], sources: list[list[str]]) -> None:
    """claims_corpus with prose quotations only (CL206 off)."""
    claims_corpus(texts, sources, numbers=False)


def govern_corpus(texts: list[str], sources: list[list[str]]) -> None:
    """Same, but with govern(): every link located, not only those with findings."""
    for text, srcs in zip(texts, sources):
        links.govern(text, links.LinkEvidence(links.Allowlist(srcs)))


def inclusive_corpus(texts: list[str], sources: list[list[str]]) -> None:
    """Everything inside the timing: extract every link (positions included),
    build the allowlist from the document's own links, judge every link."""
    for text in texts:
        found = links.extract(text)
        allow = links.Allowlist(link.cited for link in found if link.category == "governed")
        links.judge(found, links.LinkEvidence(allow))


def render_corpus(texts: list[str], sources: list[list[str]]) -> None:
    """Stage: cmark-gfm's render of each document, as check() first renders it."""
    for text in texts:
        render.render_html(text, render.GITHUB_EXTENSIONS, True, sourcepos=False)


def allowlist_corpus(texts: list[str], sources: list[list[str]]) -> None:
    """Stage: building each document's allowlist (the identity of every source)."""
    for srcs in sources:
        links.Allowlist(srcs)


def scan_stage(texts: list[str]):
    """Stage: reading the tags of each document's output as check() does (rendered beforehand)."""
    outs = [render.render_html(text, render.GITHUB_EXTENSIONS, True, sourcepos=False) for text in texts]
    tuples = getattr(render, "scan_link_tuples", None)  # older checkouts scan match objects

    def scan_corpus(texts: list[str], sources: list[list[str]]) -> None:
        for out in outs:
            if tuples is not None:
                tuples(out, False, False)
            else:
                render.scan_links(out, False)
    return scan_corpus


def time_citelint(fn, texts: list[str], sources: list[list[str]]) -> tuple[float, float]:
    """(wall, CPU) seconds of one pass of ``fn`` over the corpus, URL caches cleared first."""
    urls.clear_caches()
    wall, cpu = time.perf_counter(), time.process_time()
    fn(texts, sources)
    return time.perf_counter() - wall, time.process_time() - cpu


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

    sources = sources_of(texts)
    counts = check_corpus(texts, sources)
    peer = None if args.no_peer else Peer()
    fns = {"check": check_corpus, "quotes": quotes_corpus, "claims": claims_corpus, "govern": govern_corpus,
           "inclusive": inclusive_corpus}
    wall = {name: float("inf") for name in fns}
    cpu = {name: float("inf") for name in fns}
    peer_wall = peer_cpu = float("inf")
    peer_removed = 0
    # Interleave the tools repeat by repeat, so that load from anything else
    # on the machine falls on both alike; keep the best time of each. Both
    # wall and process CPU time are kept: on a shared machine wall time is
    # inflated by waiting, CPU time is not (but V8's CPU time includes its
    # background GC/compiler threads).
    paired: dict[str, list[float]] = {name: [] for name in fns}
    paired_wall: dict[str, list[float]] = {name: [] for name in fns}
    stages = {"cmark": render_corpus, "allowlist": allowlist_corpus, "scan": scan_stage(texts)}
    stage_cpu: dict[str, list[float]] = {name: [] for name in (*stages, "rest", "findings", "peer")}
    with_findings = [i for i, (text, srcs) in enumerate(zip(texts, sources))
                     if links.check(text, links.LinkEvidence(links.Allowlist(srcs))).located]
    findings_texts = [texts[i] for i in with_findings]
    findings_sources = [sources[i] for i in with_findings]
    try:
        for _ in range(args.repeats):
            this, this_wall = {}, {}
            for name, fn in fns.items():
                w, c = time_citelint(fn, texts, sources)
                wall[name], cpu[name] = min(wall[name], w), min(cpu[name], c)
                this[name], this_wall[name] = c, w
            for name, fn in stages.items():
                stage_cpu[name].append(time_citelint(fn, texts, sources)[1])
            stage_cpu["rest"].append(this["check"] - sum(stage_cpu[name][-1] for name in stages))
            stage_cpu["findings"].append(time_citelint(check_corpus, findings_texts, findings_sources)[1])
            if peer is not None and peer.error is None:
                run = peer.run(files, 2)
                peer_wall = min(peer_wall, run["seconds"])
                peer_cpu = min(peer_cpu, run["cpu_seconds"])
                peer_removed = run["removed"]
                stage_cpu["peer"].append(run["cpu_seconds"])
                for name in fns:  # this repeat's ratio: both measured back to back
                    paired[name].append(run["cpu_seconds"] / this[name])
                    paired_wall[name].append(run["seconds"] / this_wall[name])
    finally:
        if peer is not None:
            peer.close()
    if peer is None:
        peer_result = {"error": "skipped (--no-peer)"}
    elif peer.error is not None:
        peer_result = {"error": peer.error}
    else:
        peer_result = {"package": PEER, "wall_s": peer_wall, "cpu_s": peer_cpu,
                       "mb_per_s_wall": mb / peer_wall, "mb_per_s_cpu": mb / peer_cpu,
                       "removed": peer_removed}
    result = {
        "files": len(files), "bytes": size, "repeats": args.repeats, "counts": counts,
        "citelint": {name: {"wall_s": wall[name], "cpu_s": cpu[name], "mb_per_s_wall": mb / wall[name],
                            "mb_per_s_cpu": mb / cpu[name]} for name in fns},
        "peer": peer_result,
    }
    print(f"citelint from {Path(citelint.__file__).parent}")
    print(f"corpus: {len(files)} files, {mb:.2f} MB; best of {args.repeats} (wall / CPU)")
    print(f"links: {counts['links']} ({counts['governed']} governed, {counts['grounded']} grounded); "
          f"CL201 {counts['CL201']}, CL202 {counts['CL202']}, CL203 {counts['CL203']}")
    labels = {
        "check": "citelint check()  (allowlist; every link judged, findings located)",
        "quotes": "citelint check() + prose quotations detected (CL205's reading)",
        "claims": "citelint check() + quotations and cited numbers (CL205, CL206)",
        "govern": "citelint govern() (allowlist; every link judged and located)",
        "inclusive": "citelint extract + allowlist from own links + judge",
    }
    for name, label in labels.items():
        print(f"{label:70s} {wall[name]:6.3f} s {mb / wall[name]:6.2f} MB/s | "
              f"{cpu[name]:6.3f} s {mb / cpu[name]:6.2f} MB/s")
    if "error" in peer_result:
        print(f"peer: not measured: {peer_result['error']}")
    else:
        print(f"{PEER + ' (inline links only)':70s} {peer_wall:6.3f} s {mb / peer_wall:6.2f} MB/s | "
              f"{peer_cpu:6.3f} s {mb / peer_cpu:6.2f} MB/s  (removed {peer_removed})")
        result["ratio_wall"] = {name: peer_wall / wall[name] for name in fns}
        result["ratio_cpu"] = {name: peer_cpu / cpu[name] for name in fns}
        print("ratio citelint/peer MB/s, wall: " + ", ".join(f"{k} {v:.2f}x" for k, v in result["ratio_wall"].items()))
        print("ratio citelint/peer MB/s, CPU:  " + ", ".join(f"{k} {v:.2f}x" for k, v in result["ratio_cpu"].items()))
        result["ratio_cpu_paired_median"] = {name: statistics.median(v) for name, v in paired.items()}
        result["ratio_wall_paired_median"] = {name: statistics.median(v) for name, v in paired_wall.items()}
        result["ratio_cpu_paired"] = paired
        print("median of per-repeat CPU ratios:  " + ", ".join(
            f"{k} {v:.2f}x" for k, v in result["ratio_cpu_paired_median"].items())
            + "  (" + " ".join(f"{v:.2f}" for v in paired["check"]) + ")")
        print("median of per-repeat wall ratios: " + ", ".join(
            f"{k} {v:.2f}x" for k, v in result["ratio_wall_paired_median"].items()))
    medians = {name: statistics.median(v) for name, v in stage_cpu.items() if v}
    result["stages_cpu_median_s"] = medians
    peer_s = medians.get("peer")
    print("check() stages, median CPU of the repeats"
          + (" (share of the peer's time)" if peer_s else "") + ": " + ", ".join(
              f"{name} {v:.3f} s" + (f" ({v / peer_s:.0%})" if peer_s else "")
              for name, v in medians.items() if name not in ("peer", "findings")))
    findings_s = medians["findings"]
    print(f"  check() over the {len(with_findings)} documents with a finding alone "
          f"({sum(map(len, findings_texts)) / sum(map(len, texts)):.0%} of the text): {findings_s:.3f} s"
          + (f" ({findings_s / peer_s:.0%})" if peer_s else ""))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
