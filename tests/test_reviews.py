"""The review ledger (docs/reviews.md): fingerprints, records, which review
counts, `citelint review`, and the ledger in `check` (CL901, CL903, CL301,
CL109), with real reports, real captures, real git and real SSH keys."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from citelint.config import ReviewSettings
from citelint.evidence.ledger import load_ledger
from citelint.fingerprints import fact_fingerprint, quotation_fingerprint, review_sentence
from citelint.store.reviews import record_bytes
from citelint.store.writer import write_review
from conftest import SOURCE_A, SOURCE_B, Repo, Run, run_cli
from gitrepo import commit_all, git, init_repo

REPO_ROOT = Path(__file__).resolve().parents[1]
SHA = "ab" * 32
SNIPPET = "Inventory held steady at 42 items."
needs_ssh = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")


# ----------------------------------------------------------------- fingerprints, one test per rule

def test_a_fact_fingerprint_covers_label_source_capture_and_snippet() -> None:
    fp = fact_fingerprint("inventory", SOURCE_A, SHA, SNIPPET)
    assert len(fp) == 64 and int(fp, 16) >= 0
    assert fp == fact_fingerprint("inventory", SOURCE_A, SHA, SNIPPET)
    # One changed character of any of the four is another citation.
    assert fp != fact_fingerprint("inventorz", SOURCE_A, SHA, SNIPPET)
    assert fp != fact_fingerprint("inventory", SOURCE_A + "x", SHA, SNIPPET)
    assert fp != fact_fingerprint("inventory", SOURCE_A, "ab" * 31 + "ac", SNIPPET)
    assert fp != fact_fingerprint("inventory", SOURCE_A, SHA, SNIPPET.replace("42", "43"))


def test_fingerprints_are_sha256_of_canonical_json() -> None:
    """The definition docs/reviews.md gives, written out with the standard library."""
    import hashlib

    def canonical(obj: dict[str, str]) -> str:
        data = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()

    snippet = "Ein “Zitat” mit \\ und \" und \u2028 und \ud800"
    assert fact_fingerprint("q1-c2", SOURCE_A, SHA, snippet) == canonical(
        {"kind": "fact", "label": "q1-c2", "source": SOURCE_A, "capture": SHA, "snippet": snippet})
    assert quotation_fingerprint(" It  says\n“x” https://a.example/ ", SOURCE_A, SHA, "x") == canonical(
        {"kind": "quotation", "sentence": "It says “x”", "source": SOURCE_A, "capture": SHA, "text": "x"})


def test_a_fact_fingerprint_never_collides_with_a_quotation_of_the_same_words() -> None:
    assert fact_fingerprint("x", SOURCE_A, SHA, SNIPPET) != quotation_fingerprint("x", SOURCE_A, SHA, SNIPPET)


def test_a_quotation_fingerprint_ignores_whitespace_and_urls_of_its_sentence() -> None:
    text = "held steady at 42 items"
    fp = quotation_fingerprint("The report says “held steady at 42 items” [1].", SOURCE_A, SHA, text)
    # Re-wrapped, or with a bare URL in the sentence changed or removed: the same judgment.
    assert fp == quotation_fingerprint("The report  says\n“held steady at 42 items”  [1]. ", SOURCE_A, SHA, text)
    assert review_sentence("See https://a.example/x?y=1 and www.b.example/z now") == "See and now"
    assert quotation_fingerprint("It says “held steady at 42 items” https://a.example/1", SOURCE_A, SHA, text) == \
        quotation_fingerprint("It says “held steady at 42 items” https://b.example/2", SOURCE_A, SHA, text)


def test_a_quotation_fingerprint_changes_with_one_character_of_sentence_text_or_revision() -> None:
    sentence, text = "The report says “held steady at 42 items” [1].", "held steady at 42 items"
    fp = quotation_fingerprint(sentence, SOURCE_A, SHA, text)
    assert fp != quotation_fingerprint(sentence.replace("says", "said"), SOURCE_A, SHA, text)
    assert fp != quotation_fingerprint(sentence, SOURCE_A, SHA, text.replace("42", "43"))
    assert fp != quotation_fingerprint(sentence, SOURCE_A, "cd" * 32, text)
    assert fp != quotation_fingerprint(sentence, SOURCE_B, SHA, text)


# ----------------------------------------------------------------- the ledger in check

def review(repo: Repo, fingerprint: str, verdict: str = "supports", at: str = "2026-12-01T10:00:00Z",
           by: str = "ada@example.org", note: str | None = "checked against the source") -> Path:
    """A review record written into ``repo``'s ledger by the evidence writer."""
    return write_review(repo.root / "reviews", fingerprint, record_bytes(fingerprint, verdict, by, at, note))[1]


def fp_of(repo: Repo, label: str = "inventory", source: str = SOURCE_A, snippet: str = SNIPPET) -> str:
    return fact_fingerprint(label, source, repo.records[source].sha256, snippet)


def json_check(repo: Repo, *args: str) -> tuple[Run, dict]:
    import jsonschema

    run = repo.check("--format", "json", *args)
    doc = json.loads(run.out)
    jsonschema.validate(doc, json.loads((REPO_ROOT / "schemas" / "output.schema.json").read_text("utf-8")))
    return run, doc


def test_a_reviewed_fact_leaves_the_review_list_and_json_says_who(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET), repo.cited("sales", SOURCE_B, "17 items were sold in the second"))
    run, doc = json_check(repo)
    assert doc["counts"]["semanticReview"] == 2 and doc["counts"]["reviewed"] == 0
    assert [a["reviewed"] for a in doc["accepted"]] == [None, None]
    review(repo, fp_of(repo), note="the count is of items held, as the label means")
    run, doc = json_check(repo)
    assert run.code == 0
    assert doc["counts"]["semanticReview"] == 1 and doc["counts"]["reviewed"] == 1 and doc["counts"]["rejected"] == 0
    assert [n["line"] for n in doc["semanticReview"]] == [doc["accepted"][1]["line"]]
    assert doc["accepted"][0]["fingerprint"] == fp_of(repo)
    assert doc["accepted"][0]["reviewed"] == {"verdict": "supports", "by": "ada@example.org",
                                              "at": "2026-12-01T10:00:00Z",
                                              "note": "the count is of items held, as the label means"}
    assert "1 reviewed: supports" in repo.check().out
    sarif = json.loads(repo.check("--format", "sarif").out)["runs"][0]
    assert sarif["results"] == [] and sarif["properties"]["acceptedCitations"] == 2
    assert sarif["properties"]["counts"]["reviewed"] == 1 and sarif["properties"]["counts"]["semanticReview"] == 1


def test_a_moved_report_keeps_its_review_and_a_changed_snippet_loses_it(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET), name="reports/q3.json")
    review(repo, fp_of(repo))
    assert json_check(repo)[1]["counts"]["semanticReview"] == 0
    (repo.root / "reports" / "q3.json").rename(repo.root / "reports" / "moved.json")
    assert json_check(repo)[1]["counts"]["reviewed"] == 1
    repo.report(repo.cited(snippet="Inventory held steady at 42 items"), name="reports/moved.json")
    doc = json_check(repo)[1]
    assert doc["counts"]["reviewed"] == 0 and doc["counts"]["semanticReview"] == 1


def test_the_latest_review_counts_ties_broken_by_digest(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    fp = fp_of(repo)
    review(repo, fp, "supports", at="2026-12-01T10:00:00Z")
    review(repo, fp, "does-not-support", at="2026-12-02T10:00:00Z", note="the figure is for 2025")
    run = repo.check()
    assert run.code == 1 and len(run.findings("CL903")) == 1
    assert "'ada@example.org'" in run.findings("CL903")[0] and "the figure is for 2025" in run.findings("CL903")[0]
    review(repo, fp, "supports", at="2026-12-03T10:00:00Z", note="2026 after all: see the heading")
    assert repo.check().code == 0
    # Two at the same time: the one with the greater record digest counts, in every clone.
    other = Repo(repo.root.parent / "tie")
    other.root.mkdir()
    shutil.copytree(repo.root / "captures", other.root / "captures")
    shutil.copy(repo.root / "citelint.yaml", other.root)
    other.records = repo.records
    other.report(other.cited(snippet=SNIPPET))
    paths = [review(other, fp, verdict, at="2026-12-03T00:00:00Z", note=f"tie {verdict}")
             for verdict in ("supports", "does-not-support")]
    winner = max(paths, key=lambda p: p.name)
    ledger = load_ledger(ReviewSettings(other.root / "reviews"))
    record = ledger.record(fp)
    assert record is not None and record.digest == winner.stem
    assert (other.check().code == 1) is (json.loads(winner.read_bytes())["verdict"] == "does-not-support")


def test_cl903_is_an_error_that_may_be_lowered(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    review(repo, fp_of(repo), "does-not-support", note="not inventory: that is stock on order")
    assert repo.check().code == 1
    repo.config(rules={"CL903": "warning"})
    run = repo.check()
    assert run.code == 0 and "warning" in run.out and len(run.findings("CL903")) == 1
    assert repo.check("--strict").code == 1


def test_a_rejected_prose_quotation_is_cl903(repo: Repo) -> None:
    repo.config(markdown=["reports/*.md"])
    repo.write("reports/a.md", f"The store says “Inventory held steady at 42 items” [1]({SOURCE_A}).\n")
    doc = json_check(repo)[1]
    [q] = [a for a in doc["accepted"] if a["kind"] == "quotation"]
    assert doc["counts"]["semanticReview"] == 1
    review(repo, q["fingerprint"], "does-not-support", note="the sentence claims more than the source")
    run = repo.check()
    assert run.code == 1
    [finding] = run.findings("CL903")
    assert finding.startswith("reports/a.md:1:") and "the sentence claims more" in finding
    # Re-wrapping the paragraph keeps the judgment.
    repo.write("reports/a.md", f"The store says\n“Inventory held steady at 42 items”\n[1]({SOURCE_A}).\n")
    assert len(repo.check().findings("CL903")) == 1


def test_bad_review_files_never_count_and_are_named(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    path = review(repo, fp_of(repo))
    # Edited after it was written: its bytes no longer hash to its name.
    path.write_bytes(path.read_bytes().replace(b"checked", b"CHECKED"))
    (repo.root / "reviews" / "notes.txt").write_text("stray", encoding="utf-8")
    run = repo.check()
    shown = run.out + run.err
    assert run.code == 0
    assert "does not count: its bytes do not hash to its file name" in shown
    assert "1 for semantic review" in shown
    # A stray entry beside the fingerprint folders is never read by a check; --stale names it.
    (repo.root / "reviews" / fp_of(repo)[:40]).mkdir()
    (repo.root / "reviews" / fp_of(repo)[:40] / "r.json").write_text("{}", encoding="utf-8")
    stale = run_cli("review", "--stale", cwd=repo.root)
    assert "notes.txt: not a fingerprint folder" in stale.out and f"{fp_of(repo)[:40]}: not a fingerprint" in stale.out
    assert "its bytes do not hash to its file name" in stale.out


def test_a_missing_ledger_costs_nothing_and_says_nothing(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    run = repo.check()
    shown = run.out + run.err
    assert run.code == 0 and "does not count" not in shown and "reviewed:" not in shown


def test_review_files_are_not_reports_and_outputs_never_land_there(repo: Repo) -> None:
    repo.config(reports=["**/*.json"])
    repo.report(repo.cited(snippet=SNIPPET))
    review(repo, fp_of(repo))
    run = repo.check()
    assert run.code == 0 and "citelint: 1 file," in run.out
    out = run_cli("check", "--output-file", "reviews/out.json", cwd=repo.root)
    assert out.code == 2 and "it is evidence" in out.err


def test_the_reviews_config_block(repo: Repo) -> None:
    repo.config(reviews={"dir": "captures/reviews"})
    run = repo.check()
    assert run.code == 2 and "citelint.yaml:" in run.err and "reviews.dir" in run.err
    repo.config(reviews={"allowed_signers": "../elsewhere"})
    run = repo.check()
    assert run.code == 2 and "leads outside the project" in run.err
    repo.config(reviews={"dir": "ledger", "unknown": 1})
    run = repo.check()
    assert run.code == 2 and "citelint.yaml:" in run.err


# ----------------------------------------------------------------- citelint review

def test_review_lists_approves_by_prefix_and_refuses_what_it_cannot_record(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET), repo.cited("sales", SOURCE_B, "17 items were sold in the second"))
    listing = run_cli("review", cwd=repo.root)
    assert listing.code == 0 and "2 of 2 accepted citations not reviewed" in listing.out
    assert fp_of(repo)[:16] in listing.out and "[Inventory held steady at 42 items.]" in listing.out
    doc = json.loads(run_cli("review", "--format", "json", cwd=repo.root).out)
    assert [u["fingerprint"] for u in doc["unreviewed"]][0] == fp_of(repo)
    assert run_cli("review", "--approve", fp_of(repo)[:10], cwd=repo.root).code == 2  # no --by
    assert run_cli("review", "--reject", fp_of(repo)[:10], "--by", "ada", cwd=repo.root).code == 2  # no --note
    unknown = run_cli("review", "--approve", "ffff" * 4, "--by", "ada", cwd=repo.root)
    assert unknown.code == 2 and "no accepted citation has the fingerprint" in unknown.err
    assert run_cli("review", "--approve", "", "--by", "ada", cwd=repo.root).code == 2
    assert not (repo.root / "reviews").exists()  # nothing written by a refusal
    done = run_cli("review", "--approve", fp_of(repo)[:8], "--by", "ada@example.org", "--note", "held, not sold",
                   cwd=repo.root)
    assert done.code == 0 and done.out.startswith(f"recorded: {fp_of(repo)[:16]} supports by ada@example.org")
    [record] = (repo.root / "reviews" / fp_of(repo)).glob("*.json")
    assert json.loads(record.read_bytes())["note"] == "held, not sold"
    listing = run_cli("review", cwd=repo.root)
    assert "1 of 2 accepted citations not reviewed (1 reviewed: supports" in listing.out
    assert fp_of(repo)[:16] not in listing.out


def test_review_stale_lists_what_no_citation_matches(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    review(repo, fp_of(repo))
    assert "0 stale reviews" in run_cli("review", "--stale", cwd=repo.root).out
    repo.report(repo.cited(snippet="Inventory held steady at 42 items"))
    stale = run_cli("review", "--stale", cwd=repo.root)
    assert stale.code == 0 and f"stale: reviews/{fp_of(repo)}/" in stale.out and "1 stale review " in stale.out


# ----------------------------------------------------------------- signed reviews in a pull request

def make_key(directory: Path, name: str) -> Path:
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True,
                   capture_output=True)
    return path


@needs_ssh
def test_a_pull_request_flow_with_signed_reviews(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    keys = tmp_path_factory.mktemp("keys")
    ada, mallory = make_key(keys, "ada"), make_key(keys, "mallory")
    pub = " ".join(ada.with_suffix(".pub").read_text().split()[:2])
    repo.write(".citelint/review_signers", f'ada@example.org namespaces="citelint-review" {pub}\n')
    repo.config(reviews={"allowed_signers": ".citelint/review_signers"})
    root = repo.root
    init_repo(root)
    commit_all(root, "config and captures")
    # main: one report, its citation approved with a signed review.
    repo.report(repo.cited(snippet=SNIPPET), name="reports/a.json")
    signed = run_cli("review", "--approve", fp_of(repo), "--by", "ada@example.org", "--note", "held stock, 2026",
                     "--sign-key", str(ada), cwd=root)
    assert signed.code == 0 and ", signed)" in signed.out
    commit_all(root, "reviewed report a")
    git(root, "checkout", "--quiet", "-b", "change")
    # The change adds one report: only its citation is listed.
    repo.report(repo.cited("sales", SOURCE_B, "17 items were sold in the second"), name="reports/b.json")
    b_fp = fact_fingerprint("sales", SOURCE_B, repo.records[SOURCE_B].sha256, "17 items were sold in the second")
    listing = run_cli("review", cwd=root)
    assert "1 of 2 accepted citations not reviewed" in listing.out and b_fp[:16] in listing.out
    # Unsigned, with allowed_signers set: refused before anything is written.
    unsigned = run_cli("review", "--approve", b_fp[:12], "--by", "ada@example.org", cwd=root)
    assert unsigned.code == 2 and "--sign-key" in unsigned.err and not (root / "reviews" / b_fp).exists()
    # Another key, for the same name: refused too.
    other = run_cli("review", "--approve", b_fp[:12], "--by", "ada@example.org", "--sign-key", str(mallory),
                    cwd=root)
    assert other.code == 2 and "not in the allowed signers" in other.err
    # Written by hand (the pipeline that drafted the report): they do not count.
    forged = review(repo, b_fp, note="self-approved")
    subprocess.run(["ssh-keygen", "-Y", "sign", "-q", "-n", "citelint-review", "-f", str(mallory), str(forged)],
                   check=True, capture_output=True)
    sig = forged.with_name(forged.name + ".sig")
    key_hex = _key_hex(mallory)
    sig.rename(forged.with_name(f"{forged.stem}.{key_hex[:16]}.sig"))
    git(root, "add", "--all")
    run = repo.check()
    assert "1 for semantic review" in run.out and "does not count" in run.out and "not in the allowed" in run.out
    # The reviewer approves with the allowed key: the list is clear.
    ok = run_cli("review", "--approve", b_fp[:12], "--by", "ada@example.org", "--note", "units sold in Q2",
                 "--sign-key", str(ada), cwd=root)
    assert ok.code == 0
    run = repo.check("--base", "main")
    assert run.code == 1 and "for semantic review" not in run.out  # CL109: the new review is not staged yet
    assert len(run.findings("CL109")) == 1
    git(root, "add", "--all")
    run = repo.check("--base", "main")
    assert run.code == 0 and "for semantic review" not in run.out and "2 reviewed: supports" in run.out
    # Editing a committed review is CL301, and so is deleting its signature.
    [committed] = (root / "reviews" / fp_of(repo)).glob("*.json")
    committed.write_bytes(committed.read_bytes().replace(b"2026", b"2025"))
    run = repo.check("--base", "main")
    assert [f.split(": CL301 ")[1].split(" since")[0] for f in run.findings("CL301")] == ["review record was modified"]
    git(root, "checkout", "--quiet", "--", str(committed))
    [committed_sig] = (root / "reviews" / fp_of(repo)).glob("*.sig")
    committed_sig.unlink()
    run = repo.check("--base", "main")
    assert len(run.findings("CL301")) == 1 and "review signature was deleted" in run.findings("CL301")[0]


def _key_hex(key: Path) -> str:
    from citelint.evidence.sshsig import PublicKey

    return PublicKey.from_openssh(key.with_suffix(".pub").read_text()).fingerprint_hex()


def test_a_check_without_a_reviews_folder_loads_no_ledger_code(repo: Repo) -> None:
    """In a fresh interpreter: no reviews/ folder, so neither the ledger nor the signature code loads."""
    import sys

    repo.report(repo.cited(snippet=SNIPPET))
    code = ("import io, sys\nfrom citelint.cli import main\n"
            "code = main(['check'], stdout=io.StringIO(), stderr=io.StringIO())\n"
            "print(code, sorted(m for m in sys.modules\n"
            "                   if m.startswith(('citelint.evidence', 'citelint.store.reviews'))))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo.root, capture_output=True, text=True)
    assert out.stdout.split(maxsplit=1) == ["0", "[]\n"], out.stdout + out.stderr
    review(repo, fp_of(repo))
    out = subprocess.run([sys.executable, "-c", code], cwd=repo.root, capture_output=True, text=True)
    assert "'citelint.evidence.ledger'" in out.stdout, out.stdout + out.stderr


def test_a_check_reads_only_the_review_folders_of_its_citations(repo: Repo) -> None:
    """A hook checking one report reads that report's reviews, not the whole ledger:
    a broken review of another citation is not even opened, and `review --stale` finds it."""
    repo.report(repo.cited(snippet=SNIPPET))
    review(repo, fp_of(repo))
    elsewhere = review(repo, "ee" * 32)
    elsewhere.write_bytes(b"not json")
    run = repo.check()
    assert run.code == 0 and "does not count" not in run.out + run.err and "1 reviewed: supports" in run.out
    stale = run_cli("review", "--stale", cwd=repo.root)
    assert f"does not count: reviews/{'ee' * 32}/" in stale.out


def test_a_broken_allowed_signers_file_is_a_usage_error_when_a_review_is_judged(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    repo.config(reviews={"allowed_signers": "review_signers"})
    repo.write("review_signers", "ada@example.org not-a-key-type AAAA\n")
    review(repo, "ee" * 32)
    assert repo.check().code == 0  # no review of this run's citations: the file is not read
    review(repo, fp_of(repo))
    run = repo.check()
    assert run.code == 2 and "review_signers:1:" in run.err and "Traceback" not in run.err


def test_symlinks_in_the_ledger_are_never_followed(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A review is a real file in a real folder of the project's reviews directory, never a
    link to one elsewhere (a pull request could otherwise point the ledger at any approvals)."""
    repo.report(repo.cited(snippet=SNIPPET))
    outside = tmp_path_factory.mktemp("outside")
    data = record_bytes(fp_of(repo), "supports", "ada", "2026-12-01T10:00:00Z", None)
    path = write_review(outside / "reviews", fp_of(repo), data)[1]
    (repo.root / "reviews").symlink_to(outside / "reviews")
    run = repo.check()
    assert run.code == 2 and "citelint.yaml:" in run.err and "reviews.dir: 'reviews' leads outside" in run.err
    (repo.root / "reviews").unlink()
    (repo.root / "reviews").mkdir()
    (repo.root / "reviews" / fp_of(repo)).symlink_to(path.parent)
    run = repo.check()
    assert "reviewed: supports" not in run.out and "not a directory" in run.out, run.out
    (repo.root / "reviews" / fp_of(repo)).unlink()
    (repo.root / "reviews" / fp_of(repo)).mkdir()
    (repo.root / "reviews" / fp_of(repo) / path.name).symlink_to(path)
    run = repo.check()
    assert "reviewed: supports" not in run.out and "a symlink, never followed" in run.out, run.out


def test_review_stale_with_a_broken_allowed_signers_file_is_a_usage_error(repo: Repo) -> None:
    repo.report(repo.cited(snippet=SNIPPET))
    repo.config(reviews={"allowed_signers": "review_signers"})
    repo.write("review_signers", "ada@example.org not-a-key-type AAAA\n")
    review(repo, "ee" * 32)
    stale = run_cli("review", "--stale", cwd=repo.root)
    assert stale.code == 2 and "review_signers:1:" in stale.err and "internal error" not in stale.err


def test_a_broken_allowed_signers_file_judging_a_quotation_is_a_usage_error(repo: Repo) -> None:
    repo.config(markdown=["reports/*.md"], reviews={"allowed_signers": "review_signers"})
    repo.write("reports/a.md", f"The store says “Inventory held steady at 42 items” [1]({SOURCE_A}).\n")
    [q] = [a for a in json_check(repo)[1]["accepted"] if a["kind"] == "quotation"]
    repo.write("review_signers", "ada@example.org not-a-key-type AAAA\n")
    review(repo, q["fingerprint"])
    run = repo.check()
    assert run.code == 2 and "review_signers:1:" in run.err and "internal error" not in run.err


def test_review_reject_records_a_judgment_check_reports_and_an_ambiguous_prefix_is_refused(repo: Repo) -> None:
    from conftest import TEXT_A

    # Seventeen citations: two of them share a first hex digit (pigeonhole), so that digit is ambiguous.
    for i in range(17):
        repo.report(repo.cited(snippet=TEXT_A[i:i + 30]), name=f"reports/r{i:02d}.json")
    fps = [u["fingerprint"] for u in json.loads(run_cli("review", "--format", "json", cwd=repo.root).out)["unreviewed"]]
    assert len(set(fps)) == 17
    shared = next(c for c in "0123456789abcdef" if sum(fp.startswith(c) for fp in fps) > 1)
    ambiguous = run_cli("review", "--reject", shared, "--by", "ada", "--note", "no", cwd=repo.root)
    assert ambiguous.code == 2 and f"the prefix {shared} names" in ambiguous.err
    done = run_cli("review", "--reject", fps[0][:12], "--by", "ada@example.org", "--note", "a count, not a level",
                   cwd=repo.root)
    assert done.code == 0 and "does-not-support by ada@example.org" in done.out
    run = repo.check()
    assert run.code == 1 and len(run.findings("CL903")) == 1 and "'a count, not a level'" in run.findings("CL903")[0]
    assert "16 for semantic review" in run.out and "1 reviewed: does not support" in run.out


def test_a_record_dated_ahead_never_outranks_a_later_judgment(repo: Repo) -> None:
    """A record dated in the future does not count (it would outrank every judgment until its
    date came); ``citelint review`` refuses to write one that would not be the latest; a
    judgment written now carries microseconds, so approving and rejecting in one second do not tie."""
    repo.report(repo.cited(snippet=SNIPPET))
    fp = fp_of(repo)
    ahead = review(repo, fp, "supports", at="9999-12-31T23:59:59Z", note="self-approved, dated ahead")
    run = repo.check()
    assert "1 for semantic review" in run.out and "reviewed: supports" not in run.out
    assert "in the future" in run.out + run.err
    refused = run_cli("review", "--reject", fp[:12], "--by", "ada@example.org", "--note", "wrong", cwd=repo.root)
    assert refused.code == 2 and "9999-12-31T23:59:59Z" in refused.err and "nothing was written" in refused.err
    ahead.unlink()
    for verdict in ("--approve", "--reject"):
        done = run_cli("review", verdict, fp[:12], "--by", "ada@example.org", "--note", "checked", cwd=repo.root)
        assert done.code == 0, done.err
    ats = sorted(json.loads(p.read_bytes())["at"] for p in (repo.root / "reviews" / fp).glob("*.json"))
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", at) for at in ats) and ats[0] != ats[1]
    assert repo.check().findings("CL903")  # the rejection, written last, counts


def test_a_signed_reviewer_is_one_principal(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    """With a wildcard signers line (*@pipeline), a ``by`` of "reviewer@example.org,x@pipeline"
    would match and show another reviewer's name: a signed review's ``by`` is one principal."""
    keys = tmp_path_factory.mktemp("keys")
    bot = make_key(keys, "bot")
    pub = " ".join(bot.with_suffix(".pub").read_text().split()[:2])
    repo.write(".citelint/review_signers", f'*@pipeline namespaces="citelint-review" {pub}\n')
    repo.config(reviews={"allowed_signers": ".citelint/review_signers"})
    repo.report(repo.cited(snippet=SNIPPET))
    fp = fp_of(repo)
    refused = run_cli("review", "--approve", fp[:12], "--by", "reviewer@example.org,x@pipeline", "--sign-key",
                      str(bot), cwd=repo.root)
    assert refused.code == 2 and "not one principal" in refused.err
    forged = review(repo, fp, by="reviewer@example.org,x@pipeline")
    subprocess.run(["ssh-keygen", "-Y", "sign", "-q", "-n", "citelint-review", "-f", str(bot), str(forged)],
                   check=True, capture_output=True)
    forged.with_name(forged.name + ".sig").rename(forged.with_name(f"{forged.stem}.{_key_hex(bot)[:16]}.sig"))
    run = repo.check()
    assert "1 for semantic review" in run.out and "not one principal" in run.out + run.err
