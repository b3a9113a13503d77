#!/usr/bin/env python3
"""Convert the whole ExpertQA validation split and check it: exact facts pass, every mutation fails.

Both splits (``rand_val.jsonl`` and ``domain_val.jsonl``) are converted the way
``examples/build_expertqa.py`` converts the example (same functions: passages
become captures, claims become cited facts quoting a sentence of the newest
revision, URL-only evidence becomes unavailable facts) into a temporary
repository, and ``citelint check`` runs in-process (``run_check``) on three
sets of reports:

1. **base**: the converted facts. Every one should be accepted.
2. **mutations**: for every fact, variants with one typical fault each
   (``MUTATIONS``); each must be rejected, by the expected rule and only by
   it. A variant that is not actually a fault (the mutated snippet happens
   to occur in the capture, or the mutation does not apply, e.g. NFD of an
   ASCII snippet) is counted as not applicable, not as a pass.
3. **claims**: each claim's own ``claim_string`` minus its ``[3]`` markers,
   used as the snippet against each of its evidence passages. Claims
   paraphrase their evidence, so most are rejected: the figure shows what
   exact checking catches.

Run from the repository root (prints a table; exit 1 when a mutation slipped
through or a base fact was rejected)::

    python bench/expertqa_validate.py [--corpus-dir ../shared/corpus/expertqa]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from citelint.check.run import run_check  # noqa: E402
from citelint.config import load_config  # noqa: E402


def _load_builder() -> Any:
    """Import examples/build_expertqa.py (not a package) so the conversion is literally the same."""
    spec = importlib.util.spec_from_file_location("build_expertqa", REPO_ROOT / "examples" / "build_expertqa.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bx = _load_builder()

SPLITS = (("rand", "rand_val.jsonl"), ("domain", "domain_val.jsonl"))

# --------------------------------------------------------------------------- mutations

Fact = dict[str, str]


class Context:
    """What mutations may consult: the conversion, a fixed order of sources, and two lookups."""

    def __init__(self, conv: Any):
        self.conv = conv
        self.sources: list[str] = list(conv.captures)
        self._records = {(r.source, r.sha256): r for revs in conv.captures.values() for r in revs}
        #: label of an unavailable fact -> the first URL its claim cited.
        self.unavailable_url = {c.label: c.evidence[0].url for c, f in conv.facts if f["state"] == "unavailable"}

    def text(self, fact: Fact) -> str:
        """The captured text a cited fact names."""
        return self._records[(fact["source"], fact["captureSha256"])].text


def _snippet_mutation(change: Callable[[str], str]) -> Callable[[Fact, Context], Fact | None]:
    """A mutation that edits the snippet; None when it changes nothing or still occurs verbatim."""
    def mutate(fact: Fact, ctx: Context) -> Fact | None:
        if fact["state"] != "cited":
            return None
        new = change(fact["snippet"])
        if new == fact["snippet"] or new in ctx.text(fact):
            return None
        return {**fact, "snippet": new}
    return mutate


def _curl(s: str) -> str:
    for straight, curly in (("'", "\u2019"), ('"', "\u201c")):
        if straight in s:
            return s.replace(straight, curly, 1)
    return s


def _double_space(s: str) -> str:
    return s.replace(" ", "  ", 1)


def _nbsp(s: str) -> str:
    return s.replace(" ", "\u00a0", 1)


def _nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def _zero_width(s: str) -> str:
    # Inside a word if possible, where a reader would never see it.
    for i in range(len(s) // 2, len(s) - 1):
        if s[i].isalpha() and s[i + 1].isalpha():
            return s[:i + 1] + "\u200b" + s[i + 1:]
    return s[:1] + "\u200b" + s[1:]


def _wrong_source(fact: Fact, ctx: Context) -> Fact | None:
    if fact["state"] != "cited":
        return None
    i = ctx.sources.index(fact["source"])
    for other in ctx.sources[i + 1:] + ctx.sources[:i]:
        record = ctx.conv.newest(other)
        if fact["snippet"] not in record.text:
            return {**fact, "source": other, "captureSha256": record.sha256}
    return None


def _other_revision(fact: Fact, ctx: Context) -> Fact | None:
    if fact["state"] != "cited":
        return None
    for record in ctx.conv.captures[fact["source"]]:
        if record.sha256 != fact["captureSha256"] and fact["snippet"] not in record.text:
            return {**fact, "captureSha256": record.sha256}
    return None


def _uncaptured_digest(fact: Fact, ctx: Context) -> Fact | None:
    if fact["state"] != "cited":
        return None
    # The digest of a text that was never captured: the snippet with a marker
    # (the snippet alone may be a whole passage, and so a captured text).
    digest = hashlib.sha256(f"never captured: {fact['snippet']}".encode()).hexdigest()
    if any(r.sha256 == digest for r in ctx.conv.captures[fact["source"]]):
        return None
    return {**fact, "captureSha256": digest}


def _partial_unavailable(fact: Fact, ctx: Context) -> Fact | None:
    if fact["state"] == "cited":
        return {"state": "unavailable", "label": fact["label"], "reason": "could not be verified",
                "source": fact["source"]}
    return {**fact, "source": ctx.unavailable_url[fact["label"]]}


def _value_field(fact: Fact, ctx: Context) -> Fact | None:
    return {**fact, "value": "42"}


#: name -> (mutation, expected rule, words the message must contain).
MUTATIONS: dict[str, tuple[Callable[[Fact, Context], Fact | None], str, str]] = {
    "wrong source": (_wrong_source, "CL104", "snippet not found"),
    "other revision digest": (_other_revision, "CL104", "does occur in revision"),
    "uncaptured digest": (_uncaptured_digest, "CL102", "no capture of this source"),
    "quote straightened": (_snippet_mutation(bx.straighten), "CL104", "curly vs straight quotes"),
    "quote curled": (_snippet_mutation(_curl), "CL104", "curly vs straight quotes"),
    "whitespace doubled": (_snippet_mutation(_double_space), "CL104", "near miss (whitespace"),
    "no-break space": (_snippet_mutation(_nbsp), "CL104", "near miss (non-breaking space"),
    "NFD": (_snippet_mutation(_nfd), "CL104", "near miss (Unicode normalization"),
    "zero-width inserted": (_snippet_mutation(_zero_width), "CL104", "near miss (invisible character"),
    "partial unavailable": (_partial_unavailable, "CL002", "cannot carry 'source'"),
    "value field": (_value_field, "CL002", "no 'value' field"),
}


# --------------------------------------------------------------------------- repository

class Layout:
    """Reports written into the temporary repository, with a line -> fact map for findings."""

    def __init__(self, root: Path):
        self.root = root
        self.where: dict[tuple[str, int], tuple[str, int]] = {}  # (path, line) -> (set, item id)
        self.items: dict[str, list[Any]] = defaultdict(list)

    def add(self, group: str, report: str, entries: list[tuple[Fact, Any]]) -> None:
        """Write one report of ``group``; ``entries`` are (fact, payload) pairs kept for the tally."""
        if not entries:
            return
        rel = f"reports/{group}/{report}.json"
        bx.write_report(self.root / rel, [f for f, _ in entries], one_line_per_fact=True)
        for line, (_fact, payload) in enumerate(entries, 2):  # line 1 is '{"facts": ['
            self.where[(rel, line)] = (group, len(self.items[group]))
            self.items[group].append(payload)


@dataclass
class Tree:
    """The converted split written into a repository, with what the tally needs."""

    root: Path
    claims: list[Any]
    conv: Any
    ctx: Context
    layout: Layout
    captures: int
    not_applicable: Counter[str]


def load_claims(corpus_dir: Path) -> list[Any]:
    """The claims of both validation splits; FileNotFoundError names a missing file."""
    claims = []
    for prefix, name in SPLITS:
        path = corpus_dir / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found (the ExpertQA corpus lives in ../shared/corpus/expertqa)")
        claims += list(bx.iter_claims(bx.load_questions(path), prefix=f"{prefix}-"))
    return claims


def build_tree(root: Path, corpus_dir: Path) -> Tree:
    """Convert both splits and write the repository into ``root``: captures, the
    base reports, one report group per mutation, the claims as snippets, and
    ``citelint.yaml`` (``reports/**/*.json``)."""
    claims = load_claims(corpus_dir)
    conv = bx.convert(claims)
    ctx = Context(conv)
    root.mkdir(parents=True, exist_ok=True)
    layout = Layout(root)
    n_captures = bx.write_captures(root / "captures", conv)

    by_report: dict[str, list[Fact]] = defaultdict(list)
    for claim, fact in conv.facts:
        by_report[claim.label.rsplit("-c", 1)[0]].append(fact)
    not_applicable: Counter[str] = Counter()
    for report, facts in by_report.items():
        layout.add("base", report, [(f, f) for f in facts])
        for kind, (mutate, _, _) in MUTATIONS.items():
            variants = []
            for f in facts:
                v = mutate(f, ctx)
                if v is None:
                    not_applicable[kind] += 1
                else:
                    variants.append((v, (kind, f["label"])))
            layout.add(f"mut-{kind.replace(' ', '-')}", report, variants)

    # Claims as their own snippets, one fact per (claim, distinct passage).
    claim_labels = []
    claim_reports: dict[str, list[tuple[Fact, Any]]] = defaultdict(list)
    for claim in claims:
        snippet = bx.strip_citation_marks(claim.text)
        passages = list(dict.fromkeys((e.url, e.passage) for e in claim.evidence if e.passage is not None))
        if not snippet.strip() or not passages:
            continue
        for k, (url, passage) in enumerate(passages, 1):
            record = conv.record_of(url, passage)
            label = f"{claim.label}-e{k}"
            claim_labels.append(label)
            claim_reports[claim.label.rsplit("-c", 1)[0]].append((
                {"state": "cited", "label": label, "source": url, "captureSha256": record.sha256,
                 "snippet": snippet}, claim.label))
    for report, entries in claim_reports.items():
        layout.add("claims", report, entries)

    labels = sorted(conv.labels) + claim_labels
    (root / "citelint.yaml").write_text(json.dumps(
        {"captures": "captures", "reports": ["reports/**/*.json"], "sources": ctx.sources, "labels": labels},
        indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return Tree(root, claims, conv, ctx, layout, n_captures, not_applicable)


def main(argv: list[str] | None = None) -> int:
    """Convert, check, print the table; exit 1 if any base fact or mutation misbehaved."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus-dir", type=Path, default=REPO_ROOT.parent / "shared" / "corpus" / "expertqa")
    parser.add_argument("--keep", type=Path, help="write the repository here instead of a temporary directory")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="citelint-expertqa-") as tmp:
        try:
            tree = build_tree(args.keep or Path(tmp), args.corpus_dir)
        except FileNotFoundError as exc:
            parser.error(str(exc))
        root, claims, conv, ctx, layout = tree.root, tree.claims, tree.conv, tree.ctx, tree.layout
        n_captures, not_applicable = tree.captures, tree.not_applicable
        t_build = time.perf_counter() - t0

        config = load_config(None, root)
        t1 = time.perf_counter()
        result = run_check(config, [], root)
        t_check = time.perf_counter() - t1

        # Findings per item (errors and warnings), by group.
        hits: dict[tuple[str, int], list[Any]] = defaultdict(list)
        stray = []
        for finding in result.findings:
            key = layout.where.get((finding.path, finding.line))
            if key is None:
                stray.append(finding)
            else:
                hits[key].append(finding)
        accepted_lines = {(a.path, a.line) for a in result.accepted}

        ok = True
        files = result.files
        total_facts = sum(len(v) for v in layout.items.values())
        print(f"ExpertQA validation split ({', '.join(n for _, n in SPLITS)}): {len(claims)} claims, "
              f"{len(ctx.sources)} sources, {n_captures} captures; {files} reports, {total_facts} facts checked "
              f"in {t_check:.1f} s (conversion and writing {t_build:.1f} s)")

        # 1. base
        base = layout.items["base"]
        base_errors = [(i, f) for (g, i), fs in hits.items() if g == "base" for f in fs]
        cited = sum(f["state"] == "cited" for f in base)
        acc = sum(1 for (p, ln), (g, _) in layout.where.items() if g == "base" and (p, ln) in accepted_lines)
        print("\n1. Converted facts")
        print(f"   {'claims without evidence (left out)':<44}{conv.no_evidence:>7}")
        print(f"   {'claims without a usable sentence (left out)':<44}{conv.no_sentence:>7}")
        print(f"   {'facts: cited':<44}{cited:>7}")
        print(f"   {'facts: unavailable (URL-only evidence)':<44}{len(base) - cited:>7}")
        print(f"   {'accepted':<44}{acc:>7}")
        print(f"   {'findings on them (errors and warnings)':<44}{len(base_errors):>7}")
        for _i, f in base_errors[:10]:
            print(f"     {f}")
        if base_errors or acc != len(base):
            ok = False

        # 2. mutations
        print("\n2. Mutated variants (each must be rejected by the expected rule, and only by it)")
        print(f"   {'mutation':<24}{'rule':<7}{'variants':>9}{'rejected':>10}{'hint ok':>9}{'n/a':>7}")
        misses, vague = [], []
        for kind, (_, rule, words) in MUTATIONS.items():
            group = f"mut-{kind.replace(' ', '-')}"
            items = layout.items.get(group, [])
            rejected = hinted = 0
            for i, (_, label) in enumerate(items):
                fs = hits.get((group, i), [])
                rules = {f.rule for f in fs if f.severity == "error"}
                if rules == {rule}:
                    rejected += 1
                    hinted += any(words in f.message for f in fs)
                    if not any(words in f.message for f in fs):
                        vague.append(f"{kind}: {label}: message lacks {words!r}: {fs[0].message}")
                else:
                    misses.append(f"{kind}: {label}: expected {rule}, got {sorted(rules) or 'accepted'}"
                                  f"{': ' + fs[0].message if fs else ''}")
            print(f"   {kind:<24}{rule:<7}{len(items):>9}{rejected:>10}{hinted:>9}{not_applicable[kind]:>7}")
        if misses:
            ok = False
            print(f"   NOT as expected ({len(misses)}):")
            for m in misses[:40]:
                print(f"     {m}")
        if vague:
            # The right rule rejected them; only the explanation is off (not a failure of the check).
            print(f"   rejected by the right rule, but the hint did not name the near miss ({len(vague)}):")
            for m in vague[:40]:
                print(f"     {m}")

        # 3. claims as snippets
        items = layout.items.get("claims", [])
        per_claim: dict[str, bool] = {}
        outcome: Counter[str] = Counter()
        near = 0
        for i, claim_label in enumerate(items):
            fs = hits.get(("claims", i), [])
            errors = [f for f in fs if f.severity == "error"]
            accepted = not errors
            per_claim[claim_label] = per_claim.get(claim_label, False) or accepted
            if accepted:
                outcome["accepted" + (" (with CL105/CL106 warning)" if fs else "")] += 1
            else:
                outcome[f"rejected {errors[0].rule}"] += 1
                near += any("near miss" in f.message for f in errors)
        print("\n3. Each claim's own sentence (minus [n] markers) as the snippet, against its evidence passages")
        print(f"   {'claims with a passage':<44}{len(per_claim):>7}")
        print(f"   {'claims accepted (by at least one passage)':<44}{sum(per_claim.values()):>7}")
        print(f"   {'claims rejected (by every passage)':<44}{len(per_claim) - sum(per_claim.values()):>7}")
        print(f"   {'(claim, passage) pairs':<44}{len(items):>7}")
        for name, count in sorted(outcome.items()):
            print(f"     {name:<42}{count:>7}")
        print(f"     {'of the rejections, near misses':<42}{near:>7}")
        if stray:
            ok = False
            print(f"\nfindings outside any fact line ({len(stray)}):")
            for f in stray[:10]:
                print(f"   {f}")
        print("\nOK: every converted fact accepted, every mutated variant rejected by its expected rule" if ok
              else "\nFAILED: see above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
