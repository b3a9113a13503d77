"""The reference guide's adversarial cases (seeds/000), against the real store and CLI."""

from __future__ import annotations

import json

from citelint.store.captures import capture_path, sha256_hex
from conftest import SOURCE_A, SOURCE_B, TEXT_A, Repo


def test_exact_excerpt_and_clean_unavailable_are_accepted(repo: Repo) -> None:
    repo.report(repo.cited(), {"state": "unavailable", "label": "sales", "reason": "No approved capture"})
    run = repo.check()
    assert run.code == 0, run.out
    assert run.findings() == []
    assert "2 facts (1 cited, 1 unavailable)" in run.out


def test_unavailable_with_any_citation_field_is_rejected(repo: Repo) -> None:
    sha = repo.records[SOURCE_A].sha256
    for extra in ({"source": SOURCE_A}, {"snippet": "42 items"}, {"captureSha256": sha}, {"value": 99}):
        repo.report({"state": "unavailable", "label": "inventory", "reason": "missing", **extra})
        run = repo.check()
        assert run.code == 1
        (line,) = run.findings("CL002")
        key = next(iter(extra))
        assert f"'{key}'" in line
        # Points at the offending key: line 7, column 7 of the indented JSON.
        assert line.startswith("reports/r.json:7:7: CL002"), line


def test_value_field_on_a_cited_fact_is_rejected(repo: Repo) -> None:
    repo.report(repo.cited(value=99))
    run = repo.check()
    assert run.code == 1
    assert any("no 'value' field" in ln for ln in run.findings("CL002"))


def test_snippet_absent_from_capture_is_rejected(repo: Repo) -> None:
    repo.report(repo.cited(snippet="Synthetic source: 99 items"))
    run = repo.check()
    assert run.code == 1
    (line,) = run.findings("CL104")
    assert line.startswith("reports/r.json:8:37: CL104")  # at the first character that differs


def test_duplicate_labels_are_rejected(repo: Repo) -> None:
    repo.report(repo.cited(), repo.cited())
    run = repo.check()
    assert run.code == 1
    (line,) = run.findings("CL004")
    assert line.startswith("reports/r.json:12:16: CL004")


def test_missing_exact_source_never_borrows_another_capture(tmp_path, monkeypatch) -> None:
    r = Repo(tmp_path)
    r.config()
    r.capture(SOURCE_A, TEXT_A)
    # B is approved but has no capture; the digest of A's capture must not be honoured for B.
    fact = r.cited(source=SOURCE_A)
    fact["source"] = SOURCE_B
    r.report(fact)
    run = r.check()
    assert run.code == 1
    assert run.findings("CL102")
    # Capture B with other text: the fact still names A's digest, so it still fails.
    r.capture(SOURCE_B, "Another source: 17 items.")
    run = r.check()
    assert run.code == 1
    (line,) = run.findings("CL102")
    assert "never used in its place" in line


def test_a_digest_with_a_typo_in_its_last_digits_is_shown_whole_beside_the_real_one(repo: Repo) -> None:
    """Issue 23, item 9: CL102 cut both digests to the 61 digits that tell them apart, hiding the
    rest of the difference. Beside another, a digest is never cut."""
    real = repo.records[SOURCE_A].sha256
    typo = real[:60] + ("0" if real[60] != "0" else "1") + real[61:63] + ("0" if real[63] != "0" else "1")
    fact = repo.cited()
    fact["captureSha256"] = typo
    repo.report(fact)
    run = repo.check()
    (line,) = run.findings("CL102")
    assert f"captureSha256 {typo};" in line and f"its place: {real} (" in line
    # A quotation link naming the same typo: the title's digest is whole beside the newest one.
    repo.config(markdown=["reports/*.md"])
    repo.write("reports/a.md", f'[q]({SOURCE_A}#:~:text=items "capture:{typo}")\n')
    (quote,) = repo.check("reports/a.md").findings("CL204")
    assert f"names capture:{typo}, but" in quote and f"newest revision is capture:{real} (" in quote


def test_tampered_text_fails_closed(repo: Repo) -> None:
    repo.report(repo.cited())
    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    record = json.loads(path.read_text())
    record["text"] = record["text"] + " altered"
    path.write_text(json.dumps(record) + "\n")
    run = repo.check()
    assert run.code == 1
    (line,) = run.findings("CL103")
    assert "altered" in line


def test_tampered_source_metadata_fails_closed(repo: Repo) -> None:
    repo.report(repo.cited())
    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    record = json.loads(path.read_text())
    record["source"] = SOURCE_B
    path.write_text(json.dumps(record) + "\n")
    run = repo.check()
    assert run.code == 1
    (line,) = run.findings("CL103")
    assert "disagrees with the directory" in line


def test_tampered_digest_and_text_together_fail_closed_by_path(repo: Repo) -> None:
    """Rewriting text and its digest in place breaks the path: the name is the old digest."""
    repo.report(repo.cited())
    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    record = json.loads(path.read_text())
    record["text"] = "Synthetic source: 42 items, forged."
    record["sha256"] = sha256_hex(record["text"])
    path.write_text(json.dumps(record) + "\n")
    run = repo.check()
    assert run.code == 1
    assert run.findings("CL103")


def test_wrong_label_counterexample_is_accepted_and_listed_for_semantic_review(repo: Repo) -> None:
    # A real inventory quote labelled "sales": provenance holds, meaning does not.
    repo.report(repo.cited(label="sales"))
    run = repo.check("--review")
    assert run.code == 0
    assert run.findings() == []
    assert "semantic review (CL901): 1 accepted citation" in run.out
    assert any(line.startswith("  sales  reports/r.json:3  ") for line in run.lines)
    json_run = repo.check("--format", "json")
    (notice,) = json.loads(json_run.out)["semanticReview"]
    assert "label 'sales' is not verified" in notice["message"]
