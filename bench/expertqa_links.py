"""End-to-end link governance on ExpertQA answers (issue 4, "Show").

Run from the repository root::

    python bench/expertqa_links.py [--corpus ../shared/corpus/expertqa] [--form inline] [--json out.json]

Each ExpertQA answer cites sources with ``[n]`` markers and an attribution
list (``"[n] URL"``). The answer is rendered to Markdown with every marker
that has an attribution turned into a link to its URL, in the chosen form:

- ``inline``: ``[[n]](<URL>)`` (the default, as the issue asks);
- ``reference``: ``[[n]][n]`` plus a ``[n]: <URL>`` definition at the end;
- ``autolink``: ``[n] <URL>``;
- ``bare``: ``[n] URL`` followed by a space (the GFM autolink extension);
- ``html``: ``<a href="URL">[n]</a>``.

The allowlist is what the system actually retrieved for that question: the
URLs of the evidence entries that carry a passage (``"[n] URL\\n\\npassage"``).
Evidence given as a bare URL with no passage was not captured (some are
truncated) and is not allowed, as the corpus README says.

Printed: answers, links, governed, grounded, ungrounded (CL201), unvouchable
(CL202), per system and in total.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from citelint import links  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "expertqa"
_MARKER = re.compile(r"\[(\d+)\]")
_ATTRIBUTION = re.compile(r"\[(\d+)\]\s+(\S+)")
FORMS = ("inline", "reference", "autolink", "bare", "html")


def _angle(url: str) -> str:
    """``url`` as an angle-bracket destination that resolves back to exactly ``url``."""
    return "<" + re.sub(r"([\\<>])", r"\\\1", url).replace("&", "&amp;") + ">"


def render(answer: str, attribution: list[str], form: str = "inline") -> str:
    """The answer as Markdown with its ``[n]`` markers linked in ``form``.

    ``answer`` is ExpertQA's ``answer_string``; ``attribution`` its list of
    ``"[n] URL"`` strings. Markers without an attribution stay plain text
    (escaped, so they cannot become shortcut reference links).
    """
    cited = {}
    for entry in attribution:
        m = _ATTRIBUTION.match(entry.strip())
        if m:
            cited.setdefault(m.group(1), m.group(2))
    used: dict[str, str] = {}

    def link(m: re.Match[str]) -> str:
        n = m.group(1)
        url = cited.get(n)
        if url is None:
            return f"\\[{n}\\]"
        used[n] = url
        if form == "inline":
            return f"[\\[{n}\\]]({_angle(url)})"
        if form == "reference":
            return f"[\\[{n}\\]][ref-{n}]"
        if form == "autolink":
            return f"\\[{n}\\] <{url}>"
        if form == "bare":
            return f"\\[{n}\\] {url} "
        if form == "html":
            href = url.replace("&", "&amp;").replace('"', "&quot;")
            return f'<a href="{href}">[{n}]</a>'
        raise ValueError(f"unknown form {form!r}")

    text = _MARKER.sub(link, answer)
    if form == "reference" and used:
        text += "\n\n" + "\n".join(f"[ref-{n}]: {_angle(url)}" for n, url in sorted(used.items()))
    return text + "\n"


def retrieved(answer: dict) -> list[str]:
    """URLs of the evidence the system retrieved with a passage (the captures)."""
    out = []
    for claim in answer.get("claims") or ():
        for evidence in claim.get("evidence") or ():
            head, sep, passage = evidence.partition("\n\n")
            m = _ATTRIBUTION.match(head.strip())
            if m and sep and passage.strip():
                out.append(m.group(2))
    return out


def records(corpus: Path):
    """(system, answer dict) for every answer in the corpus, in file order."""
    for path in sorted(corpus.glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                for system, answer in row["answers"].items():
                    if answer.get("answer_string"):
                        yield system, answer


def run(corpus: Path, form: str) -> dict[str, Counter]:
    """Counts per system (and ``"total"``) for one link form."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for system, answer in records(corpus):
        markdown = render(answer["answer_string"], answer.get("attribution") or [], form)
        report = links.check(markdown, links.LinkEvidence(links.Allowlist(retrieved(answer))))
        for key in (system, "total"):
            c = counts[key]
            c["answers"] += 1
            c["links"] += report.links
            c["governed"] += report.governed
            c["grounded"] += report.grounded
            for issue in report.issues:
                c[issue.rule] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--form", choices=FORMS + ("all",), default="all")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not any(args.corpus.glob("*.jsonl")):
        print(f"no ExpertQA files in {args.corpus}", file=sys.stderr)
        return 2
    results = {}
    for form in (FORMS if args.form == "all" else (args.form,)):
        counts = run(args.corpus, form)
        results[form] = {k: dict(v) for k, v in counts.items()}
        print(f"form {form}:")
        for system, c in sorted(counts.items(), key=lambda kv: (kv[0] == "total", kv[0])):
            print(f"  {system:26s} answers {c['answers']:4d}  links {c['links']:5d}  "
                  f"governed {c['governed']:5d}  grounded {c['grounded']:5d}  "
                  f"ungrounded (CL201) {c['CL201']:5d}  unvouchable (CL202) {c['CL202']:3d}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
