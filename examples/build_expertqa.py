#!/usr/bin/env python3
"""Build the ExpertQA worked example: ``examples/expertqa/`` and ``examples/expertqa-faults/``.

ExpertQA (``../shared/corpus/expertqa``) holds real questions answered by
LLM systems. Each answer is split into claims, and each claim lists the
evidence the system retrieved, mostly as ``"[n] URL\\n\\npassage"``; about a
third of the entries are a bare URL with no passage. This script turns the
first few questions of a split into a citelint repository:

* every distinct passage becomes a capture of its URL (written with
  :func:`citelint.store.writer.write_capture`, so the store is the real layout).
  Two different passages of one URL are two revisions of that source: the
  later one in file order gets a later ``retrievedAt``, so it is the newest;
* every claim with a passage becomes a cited fact whose snippet is a
  verbatim sentence of the newest revision of its source (the claim's own
  passage when that is the newest, else the newest revision's sentence that
  best matches the claim: an author checking against the store cites the
  current revision, so the clean example has no stale-capture warnings);
* every claim whose evidence is only URLs becomes an unavailable fact (a
  URL with no passage is never a capture);
* claims with no evidence at all are left out: there is nothing to cite.

Labels are ``q<question line>-c<claim number>`` (1-based), so they are stable
as long as the corpus file is. ``retrievedAt`` values are fixed, so running
the script twice gives byte-identical files; ``tests/test_examples.py``
checks that against the committed output.

``examples/expertqa-faults/`` shares the captures (its config says
``captures: ../expertqa/captures``) and holds one report of typical faults,
each a copy of a correct fact with one thing wrong (see ``FAULTS``).

The conversion functions are also used by ``bench/expertqa_validate.py``,
which converts whole splits the same way.

Usage (from the repository root)::

    python examples/build_expertqa.py --force
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
# Run from a plain checkout without installing: the package sits next to examples/.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from citelint.store.captures import CaptureRecord, make_record  # noqa: E402
from citelint.store.writer import write_capture  # noqa: E402

DEFAULT_CORPUS = Path("../shared/corpus/expertqa/rand_val.jsonl")
#: How many questions (from the top of the split) the example takes.
EXAMPLE_QUESTIONS = 10
#: retrievedAt of a source's first revision; revision k is k days later.
BASE_TIME = datetime(2023, 5, 1, 12, 0, 0, tzinfo=UTC)
#: Sentences shorter than this identify too little; longer ones are usually
#: several sentences run together by the page scraper.
MIN_SENTENCE, MAX_SENTENCE = 40, 400

EXAMPLE_DIR = "expertqa"
FAULTS_DIR = "expertqa-faults"

_EVIDENCE = re.compile(r"\[(\d+)\] (\S+)[ \t]*(?:\n\n(.*))?\Z", re.S)
# A sentence ends at . ! or ? (optionally followed by a closing quote or
# bracket) before whitespace, or at a line break (scraped headings and list
# items carry no full stop). Crude, but every piece stays a substring of the
# passage, which is all the example needs.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]?\s+|\s*\n\s*")
_WORD = re.compile(r"\w{3,}")
_CITATION_MARK = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_CURLY = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}


# --------------------------------------------------------------------------- reading the corpus

@dataclass(frozen=True)
class Evidence:
    """One evidence entry: the cited URL and the retrieved passage (None when there is none)."""

    url: str
    passage: str | None


@dataclass
class Claim:
    """One claim of one answer, with a stable label."""

    label: str
    text: str
    evidence: list[Evidence]
    question: int


def parse_evidence(entry: str) -> Evidence | None:
    """Split ``"[n] URL\\n\\npassage"`` (or a bare ``"[n] URL"``) into an Evidence.

    Returns None for an entry of any other shape, so a surprise in the data
    skips one entry rather than inventing a capture.
    """
    m = _EVIDENCE.match(entry)
    if not m:
        return None
    passage = m.group(3)
    return Evidence(m.group(2), passage if passage and passage.strip() else None)


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The question records of one ExpertQA JSONL split, in file order."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def iter_claims(questions: Sequence[dict[str, Any]], prefix: str = "") -> Iterable[Claim]:
    """Every claim of every answer, labelled ``<prefix>q<line>-c<claim>``.

    A question record may hold answers of several systems; claims are then
    numbered on across them, so labels stay unique within the question.
    """
    for qn, question in enumerate(questions, 1):
        number = 0
        for system in sorted(question.get("answers", {})):
            for claim in question["answers"][system].get("claims", []):
                number += 1
                evidence = [e for e in map(parse_evidence, claim.get("evidence", [])) if e is not None]
                yield Claim(f"{prefix}q{qn}-c{number}", claim.get("claim_string", ""), evidence, qn)


def strip_citation_marks(text: str) -> str:
    """The claim sentence without its ``[3]``-style citation markers."""
    return _CITATION_MARK.sub("", text).strip()


# --------------------------------------------------------------------------- sentences

def sentences(text: str) -> list[str]:
    """Split ``text`` into sentence candidates; each one is a substring of ``text``."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def candidate_sentences(text: str) -> list[str]:
    """Sentences usable as snippets: of sensible length, and occurring exactly once."""
    out = []
    for s in sentences(text):
        s = s.strip()
        if MIN_SENTENCE <= len(s) <= MAX_SENTENCE and text.count(s) == 1:
            out.append(s)
    return out


def pick_sentence(text: str, claim: str, avoid: frozenset[str] | set[str] = frozenset()) -> str | None:
    """The candidate sentence of ``text`` sharing most words with ``claim`` (earliest on a tie).

    Sentences in ``avoid`` (already cited for another claim of the same
    answer) are taken only when nothing else qualifies, so one answer's facts
    do not all repeat the same sentence.
    """
    words = set(_WORD.findall(claim.casefold()))
    best, best_key = None, (False, -1)
    for s in candidate_sentences(text):
        key = (s not in avoid, len(words & set(_WORD.findall(s.casefold()))))
        if key > best_key:
            best, best_key = s, key
    return best


# --------------------------------------------------------------------------- conversion

def stamp(revision: int) -> str:
    """retrievedAt of a source's revision number ``revision`` (0 = first)."""
    return (BASE_TIME + timedelta(days=revision)).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Conversion:
    """A converted set of claims: captures by URL (oldest first), facts, and what was left out."""

    captures: dict[str, list[CaptureRecord]] = field(default_factory=dict)
    facts: list[tuple[Claim, dict[str, str]]] = field(default_factory=list)
    no_evidence: int = 0
    no_sentence: int = 0

    def newest(self, url: str) -> CaptureRecord:
        """The newest revision of ``url`` (the last one added)."""
        return self.captures[url][-1]

    def record_of(self, url: str, passage: str) -> CaptureRecord:
        """The capture holding exactly ``passage`` of ``url``."""
        return next(r for r in self.captures[url] if r.text == passage)

    @property
    def labels(self) -> dict[str, str]:
        """Approved labels of the converted facts, with the claim text as description."""
        return {claim.label: strip_citation_marks(claim.text) for claim, _ in self.facts}


def convert(claims: Iterable[Claim]) -> Conversion:
    """Turn claims into captures and facts (see the module docstring for the policy)."""
    claims = list(claims)
    conv = Conversion()
    for claim in claims:
        for ev in claim.evidence:
            if ev.passage is None:
                continue
            revisions = conv.captures.setdefault(ev.url, [])
            if all(r.text != ev.passage for r in revisions):
                revisions.append(make_record(ev.url, ev.passage, retrieved_at=stamp(len(revisions))))
    used_by_question: dict[int, set[str]] = {}
    for claim in claims:
        if not claim.evidence:
            conv.no_evidence += 1
            continue
        with_text = [ev for ev in claim.evidence if ev.passage is not None]
        if not with_text:
            urls = ", ".join(dict.fromkeys(ev.url for ev in claim.evidence))
            conv.facts.append((claim, {
                "state": "unavailable",
                "label": claim.label,
                "reason": f"the answer cites {urls} for this claim, but no passage was retrieved, "
                          "so there is no capture to quote",
            }))
            continue
        used = used_by_question.setdefault(claim.question, set())
        fact = _cite(conv, claim, with_text, used)
        if fact is None:
            conv.no_sentence += 1
        else:
            used.add(fact["snippet"])
            conv.facts.append((claim, fact))
    return conv


def _cite(conv: Conversion, claim: Claim, with_text: list[Evidence], used: set[str]) -> dict[str, str] | None:
    # First choice: a claim's own passage that is the newest revision of its URL.
    own_newest = [ev for ev in with_text if conv.newest(ev.url).text == ev.passage]
    others = [ev for ev in with_text if ev not in own_newest]
    for ev in own_newest + others:
        record = conv.newest(ev.url)
        snippet = pick_sentence(record.text, claim.text, used)
        if snippet is not None:
            return {"state": "cited", "label": claim.label, "source": record.source,
                    "captureSha256": record.sha256, "snippet": snippet}
    return None


# --------------------------------------------------------------------------- writing files

_YAML_PRINTABLE = re.compile("[\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def yaml_str(value: str) -> str:
    """``value`` as a YAML double-quoted scalar (JSON escapes, non-printables as \\u)."""
    body = json.dumps(value, ensure_ascii=False)[1:-1]
    return '"' + "".join(c if _YAML_PRINTABLE.fullmatch(c) else
                         (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}") for c in body) + '"'


def write_config(path: Path, *, header: str, captures: str, sources: Iterable[str],
                 labels: dict[str, str], review_signers: str | None = None) -> None:
    """Write a citelint.yaml approving ``sources`` and ``labels`` (name -> description);
    with ``review_signers``, the review ledger counts only reviews signed by a key it lists."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines += [f"captures: {captures}", "reports:", '  - "reports/**/*.json"', "markdown:", '  - "reports/**/*.md"']
    if review_signers is not None:
        lines += ["reviews:", f"  allowed_signers: {review_signers}"]
    lines += ["sources:"]
    lines += [f"  - {yaml_str(s)}" for s in sources]
    lines.append("labels:")
    for name, description in labels.items():
        lines.append(f"  {yaml_str(name)}:")
        lines.append(f"    description: {yaml_str(description)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_report(path: Path, facts: Sequence[dict[str, Any]], *, one_line_per_fact: bool = False) -> None:
    """Write ``{"facts": [...]}`` as UTF-8 JSON (indented, or one fact per line for tools)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if one_line_per_fact:
        body = ",\n".join(json.dumps(f, ensure_ascii=False) for f in facts)
        text = '{"facts": [\n' + body + "\n]}\n"
    else:
        text = json.dumps({"facts": list(facts)}, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


def write_captures(root: Path, conv: Conversion) -> int:
    """Write every capture of ``conv`` under ``root``; return how many files were created."""
    created = 0
    for records in conv.captures.values():
        for record in records:
            created += write_capture(root, record).created
    return created


_MARKER = re.compile(r"\[(\d+)\]")


def render_answer(question: dict[str, Any]) -> str:
    """One question's answer as a Markdown report, as a drafting pipeline would render it.

    Each ``[n]`` marker becomes an inline link to attribution ``n``; a
    "Sources" list repeats every attribution URL as an autolink, so both link
    forms are governed. Raises LookupError when the question has no answer.
    """
    system = min(question.get("answers", {}), default=None)
    if system is None:
        raise LookupError("the question has no answer to render")
    answer = question["answers"][system]
    urls: dict[str, str] = {}
    for entry in answer.get("attribution", []):
        number, _, url = entry.partition(" ")
        urls[number.strip("[]")] = url.strip()
    body = _MARKER.sub(lambda m: f"[[{m.group(1)}]]({urls[m.group(1)]})" if m.group(1) in urls else m.group(0),
                       answer["answer_string"])
    sources = "\n".join(f"{n}. <{url}>" for n, url in urls.items())
    return f"# {question['question']}\n\n{body}\n\n## Sources\n\n{sources}\n"


def answer_question(questions: Sequence[dict[str, Any]], conv: Conversion, *, grounded: bool) -> int:
    """Line number (1-based) of the first question whose attribution URLs are all
    captured (``grounded``) or all but one (not ``grounded``).

    Raises:
        LookupError: no question qualifies.
    """
    for qn, question in enumerate(questions, 1):
        for answer in question.get("answers", {}).values():
            urls = [e.partition(" ")[2].strip() for e in answer.get("attribution", [])]
            missing = sum(u not in conv.captures for u in urls)
            if urls and missing == (0 if grounded else 1):
                return qn
    raise LookupError(f"no question has an answer with {'no' if grounded else 'exactly one'} uncaptured source")


# --------------------------------------------------------------------------- the faults

#: The deliberate faults of examples/expertqa-faults, in report order:
#: (name, rule expected, fact key the finding points at, what was done).
FAULTS = [
    ("wrong-source", "CL104", "snippet",
     "a sentence of another source's passage, cited against this source's capture"),
    ("other-revision", "CL104", "snippet",
     "a sentence of the newest revision, cited with the digest of an older revision of the same URL"),
    ("straightened-quote", "CL104", "snippet",
     "a sentence with a curly apostrophe or quote, retyped with a straight one"),
    ("partial-unavailable", "CL002", "source",
     "an unavailable fact that still carries the source it could not quote (no partial citation)"),
    ("uncaptured-url", "CL101", "source",
     "a URL the answer cited without any retrieved passage, cited as if it had been captured"),
]


def straighten(text: str) -> str:
    """Replace curly quotes and apostrophes with straight ones (what a retyping model does)."""
    return "".join(_CURLY.get(c, c) for c in text)


def make_faults(conv: Conversion) -> list[dict[str, str]]:
    """One faulty fact per entry of FAULTS, each derived from a correct one.

    Raises:
        LookupError: the converted questions lack an ingredient (no source
            with two revisions, no snippet with a curly quote, ...).
    """
    cited = [f for _, f in conv.facts if f["state"] == "cited"]
    unavailable = [(c, f) for c, f in conv.facts if f["state"] == "unavailable"]
    used: set[str] = set()

    def take(candidates: Iterable[dict[str, str]], what: str) -> dict[str, str]:
        for fact in candidates:
            if fact["label"] not in used:
                used.add(fact["label"])
                return dict(fact)
        raise LookupError(f"the example questions have no fact usable for the {what!r} fault")

    faults = []
    # 1. Snippet from another source's passage.
    base = take(cited, "wrong-source")
    donor = next(f for f in cited if f["source"] != base["source"]
                 and f["snippet"] not in conv.newest(base["source"]).text)
    faults.append({**base, "snippet": donor["snippet"]})
    # 2. The digest of the other revision of the same source.
    base = take((f for f in cited if len(conv.captures[f["source"]]) > 1
                 and all(f["snippet"] not in r.text for r in conv.captures[f["source"]][:-1])), "other-revision")
    faults.append({**base, "captureSha256": conv.captures[base["source"]][0].sha256})
    # 3. A curly quote straightened.
    base = take((f for f in cited if straighten(f["snippet"]) != f["snippet"]), "straightened-quote")
    faults.append({**base, "snippet": straighten(base["snippet"])})
    # 4. A partial unavailable fact: it keeps the source it had no passage for.
    claim, fact = next((c, f) for c, f in unavailable if f["label"] not in used)
    used.add(fact["label"])
    faults.append({"state": "unavailable", "label": fact["label"], "reason": fact["reason"],
                   "source": claim.evidence[0].url})
    # 5. A URL with no passage cited as if captured (it is not an approved source).
    claim, fact = next((c, f) for c, f in unavailable if f["label"] not in used)
    used.add(fact["label"])
    donor = cited[0]
    faults.append({"state": "cited", "label": fact["label"], "source": claim.evidence[0].url,
                   "captureSha256": donor["captureSha256"], "snippet": donor["snippet"]})
    return faults


# --------------------------------------------------------------------------- reviews

#: The example reviewer's SSH key. It is published on purpose, so that a
#: rebuild signs the same reviews byte for byte (Ed25519 signatures are
#: deterministic); a real reviewer's private key is never committed, and no
#: real project should list this one.
REVIEWER_KEY = HERE / "example-reviewer_ed25519"
REVIEWER = "reviewer@example.org"
REVIEWED_AT = "2026-12-03T12:00:00Z"
REVIEW_SIGNERS = ".citelint/review_signers"
#: The citations the example reviewer checked, each with what was checked
#: against the captured passage (label -> note): every one supports its claim.
EXAMPLE_REVIEWS = {
    "q1-c5": ("The youthranch.org passage says exposure makes children 'more vulnerable to emotional problems "
              "like depression and anxiety': the raised risk of depression and anxiety the claim states."),
    "q3-c10": ("The Environmental Microbiome review's sentence gives the same figure as the claim: around 14% of "
               "microorganisms reported to degrade plastic have the conferring gene sequences elucidated."),
    "q5-c3": ("The bega.com passage says an LED lamp uses around 80 to 85 percent less electricity "
              "than a halogen lamp with the same luminous intensity, which is the claim."),
}


def write_reviews(example: Path, facts: Iterable[dict[str, str]]) -> int:
    """Sign and write the example reviews (:data:`EXAMPLE_REVIEWS`) of ``facts``
    into ``example/reviews`` with ``citelint review``'s writer, and the
    allowed-signers file that lets the example reviewer's key count; return how
    many were written.

    Raises:
        LookupError: a reviewed label is not among the cited facts.
    """
    from citelint.capture.sign import read_key
    from citelint.evidence.ledger import NAMESPACE
    from citelint.evidence.sshsig import armor
    from citelint.fingerprints import fact_fingerprint
    from citelint.store.reviews import record_bytes
    from citelint.store.writer import write_review, write_review_signature

    key = read_key(str(REVIEWER_KEY), "the example reviewer's key")
    public = " ".join(REVIEWER_KEY.with_suffix(".pub").read_text(encoding="ascii").split()[:2])
    signers = example / REVIEW_SIGNERS
    signers.parent.mkdir(parents=True, exist_ok=True)
    signers.write_text(f"# The example reviewer (examples/example-reviewer_ed25519, published: never trust it).\n"
                       f'{REVIEWER} namespaces="citelint-review" {public}\n', encoding="ascii")
    cited = {f["label"]: f for f in facts if f["state"] == "cited"}
    written = 0
    for label, note in EXAMPLE_REVIEWS.items():
        if label not in cited:
            raise LookupError(f"the example reviews {label}, which is not a cited fact any more")
        fact = cited[label]
        fingerprint = fact_fingerprint(label, fact["source"], fact["captureSha256"], fact["snippet"])
        data = record_bytes(fingerprint, "supports", REVIEWER, REVIEWED_AT, note)
        _, path = write_review(example / "reviews", fingerprint, data)
        write_review_signature(example / "reviews", fingerprint, path.stem, key.public_key.fingerprint_hex(),
                               armor(key.sign(data, namespace=NAMESPACE)).encode("ascii"))
        written += 1
    return written


# --------------------------------------------------------------------------- the example

HEADER = """\
citelint configuration of the ExpertQA worked example.
Generated by examples/build_expertqa.py from ExpertQA ({corpus}, questions 1-{n});
do not edit by hand: rebuild with `python examples/build_expertqa.py --force`.
Each label is q<question>-c<claim>; its description is the claim the answer made."""


def build(corpus: Path, out: Path, *, questions: int = EXAMPLE_QUESTIONS) -> Conversion:
    """Write ``out/expertqa`` and ``out/expertqa-faults`` from the first ``questions`` of ``corpus``.

    Raises:
        FileExistsError: either directory exists already.
    """
    example, faults_dir = out / EXAMPLE_DIR, out / FAULTS_DIR
    for d in (example, faults_dir):
        if d.exists():
            raise FileExistsError(f"{d} exists; pass --force to rebuild it")
    loaded = load_questions(corpus)[:questions]
    conv = convert(iter_claims(loaded))
    header = HEADER.format(corpus=corpus.name, n=questions)
    labels = conv.labels
    sources = list(conv.captures)

    write_config(example / "citelint.yaml", header=header, captures="captures", sources=sources, labels=labels,
                 review_signers=REVIEW_SIGNERS)
    write_captures(example / "captures", conv)
    write_reviews(example, (fact for _, fact in conv.facts))
    by_question: dict[int, list[dict[str, str]]] = {}
    for claim, fact in conv.facts:
        by_question.setdefault(claim.question, []).append(fact)
    for qn, facts in by_question.items():
        write_report(example / "reports" / f"q{qn}.json", facts)
    # Markdown: an answer whose every citation link points at a captured source.
    qn = answer_question(loaded, conv, grounded=True)
    (example / "reports" / f"q{qn}-answer.md").write_text(render_answer(loaded[qn - 1]), encoding="utf-8")

    faults_header = header.replace("worked example.", "worked example: the deliberate faults.") + \
        "\nThe captures are the clean example's: this folder adds only a report of faults."
    write_config(faults_dir / "citelint.yaml", header=faults_header, captures=f"../{EXAMPLE_DIR}/captures",
                 sources=sources, labels=labels)
    write_report(faults_dir / "reports" / "faults.json", make_faults(conv))
    # Markdown: an answer citing one URL that was never retrieved (CL201).
    qn = answer_question(loaded, conv, grounded=False)
    (faults_dir / "reports" / f"q{qn}-answer.md").write_text(render_answer(loaded[qn - 1]), encoding="utf-8")
    return conv


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build the example (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None,
                        help=f"ExpertQA JSONL split (default: {DEFAULT_CORPUS}, relative to the repository root)")
    parser.add_argument("--out", type=Path, default=HERE,
                        help="directory that receives expertqa/ and expertqa-faults/ (default: examples/)")
    parser.add_argument("--questions", type=int, default=EXAMPLE_QUESTIONS,
                        help=f"how many questions to take from the top of the split (default {EXAMPLE_QUESTIONS})")
    parser.add_argument("--force", action="store_true",
                        help="delete the two generated directories first (their captures included)")
    args = parser.parse_args(argv)
    corpus = args.corpus or REPO_ROOT / DEFAULT_CORPUS
    if not corpus.is_file():
        parser.error(f"corpus file not found: {corpus} (the ExpertQA split lives in ../shared/corpus)")
    if args.force:
        for name in (EXAMPLE_DIR, FAULTS_DIR):
            shutil.rmtree(args.out / name, ignore_errors=True)
    try:
        conv = build(corpus, args.out, questions=args.questions)
    except (FileExistsError, LookupError) as exc:
        parser.error(str(exc))
    cited = sum(f["state"] == "cited" for _, f in conv.facts)
    revisions = sum(len(r) for r in conv.captures.values())
    print(f"{args.out / EXAMPLE_DIR}: {len(conv.captures)} sources, {revisions} captures, "
          f"{cited} cited + {len(conv.facts) - cited} unavailable facts "
          f"({conv.no_evidence} claims without evidence and {conv.no_sentence} without a usable sentence left out)")
    print(f"{args.out / FAULTS_DIR}: {len(FAULTS)} deliberate faults")
    return 0


if __name__ == "__main__":
    sys.exit(main())
