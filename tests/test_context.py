"""``citelint context``: the permissible sources for a prompt, from committed, verified
captures in a real git repository, in every format; and the request built from it, with
the recorded Anthropic response of the corpus, imported with no source map and checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citelint.store.captures import sha256_hex
from conftest import corpus_path, run_cli
from gitrepo import commit_all, git, init_repo

A, B, C = "https://example.org/a.txt", "https://example.org/b.txt", "https://example.org/c.txt"
TEXT_A = "Revenue rose 12% to $4.1 million in the third quarter."
TEXT_B = "Headcount was not published for the quarter.\nSee ```code``` and ````more````."


def project(root: Path, sources: list[str]) -> Path:
    init_repo(root)
    (root / "citelint.yaml").write_text(json.dumps({"sources": sources, "markdown": ["reports/*.md"]}),
                                        encoding="utf-8")
    (root / "reports").mkdir()
    return root


def record(root: Path, source: str, text: str, when: str = "2026-12-01T10:00:00Z") -> str:
    (root / "body.txt").write_text(text, encoding="utf-8")
    run = run_cli("capture", "--source", source, "--from-file", "body.txt", "--retrieved-at", when, cwd=root)
    assert run.code == 0, run.out + run.err
    (root / "body.txt").unlink()
    return sha256_hex(text)


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = project(tmp_path / "p", [A, B, C])
    record(root, A, TEXT_A)
    record(root, B, TEXT_B)
    commit_all(root, "captures")
    return root


def test_text_lists_each_source_with_its_digest_then_the_texts(proj: Path) -> None:
    run = run_cli("context", cwd=proj)
    assert run.code == 0, run.err
    head, _, texts = run.out.rpartition(f"\n\n[1] {A}")
    assert head.splitlines() == [
        "These are the only permissible sources: cite nothing else. Cite a source by its URL exactly as listed, "
        "and quote only text that occurs in it word for word.", "",
        f"[1] {A} (capture {sha256_hex(TEXT_A)})", f"[2] {B} (capture {sha256_hex(TEXT_B)})"]
    assert TEXT_A in texts and TEXT_B in texts
    # The approved source with no capture is left out, and said to be.
    assert f"citelint: left out {C}: no capture yet" in run.err
    assert "2 source(s), 2 capture(s)" in run.err


def test_anthropic_blocks_carry_source_and_revision(proj: Path) -> None:
    run = run_cli("context", "--format", "anthropic", "--source", B, cwd=proj)
    assert run.code == 0, run.err
    assert json.loads(run.out) == [{
        "type": "document", "source": {"type": "text", "media_type": "text/plain", "data": TEXT_B},
        "title": B, "context": f"capture:{sha256_hex(TEXT_B)}", "citations": {"enabled": True}}]


def test_openai_parts_and_markdown_fences(proj: Path) -> None:
    parts = json.loads(run_cli("context", "--format", "openai", cwd=proj).out)
    assert [p["type"] for p in parts] == ["input_text"] * 3
    assert parts[0]["text"].endswith(f"[2] {B} (capture {sha256_hex(TEXT_B)})")
    assert parts[2]["text"] == f"[2] {B} (capture {sha256_hex(TEXT_B)})\n\n{TEXT_B}"
    md = run_cli("context", "--format", "markdown", "--source", B, cwd=proj).out
    # The fence is longer than any backtick run in the text, so the text cannot close it.
    assert f"`````text\n{TEXT_B}\n`````\n" in md
    import cmarkgfm

    html = cmarkgfm.github_flavored_markdown_to_html(md)
    assert html.count("<pre") == 1 and "````more````" in html


def test_only_captures_git_has_are_given(proj: Path) -> None:
    newer = record(proj, A, "Revenue rose 13% in the third quarter.", when="2026-12-02T10:00:00Z")
    run = run_cli("context", "--source", A, cwd=proj)
    assert run.code == 0
    assert f"(capture {sha256_hex(TEXT_A)})" in run.out and newer not in run.out
    assert f"{A}: a newer revision is not given: capture {newer[:12]}… is neither committed nor staged" in run.err
    git(proj, "add", "captures")  # staged counts, as for CL109
    assert f"(capture {newer})" in run_cli("context", "--source", A, cwd=proj).out
    record(proj, C, "Only on disk.")
    run = run_cli("context", "--source", C, cwd=proj)
    assert run.code == 2 and run.out == ""
    assert "no committed, verified capture to give: capture" in run.err and "neither committed nor staged" in run.err


def test_a_corrupt_capture_is_never_given(proj: Path) -> None:
    path = next((proj / "captures" / sha256_hex(A)).glob("*.json"))
    path.write_text(path.read_text(encoding="utf-8").replace("12%", "15%"), encoding="utf-8")
    commit_all(proj, "tampered")
    run = run_cli("context", cwd=proj)
    assert run.code == 0 and "15%" not in run.out and A not in run.out
    assert f"left out {A}: every capture is corrupt (see citelint ls)" in run.err


def test_a_corrupt_newest_capture_is_said_not_passed_over(proj: Path) -> None:
    """The newest committed capture fails verification: the older one is given, and stderr (and
    the API's notes) say that a revision file of the source fails verification."""
    import citelint

    newer = record(proj, A, TEXT_A + " Revised.", when="2026-12-02T10:00:00Z")
    path = proj / "captures" / sha256_hex(A) / f"{newer}.json"
    path.write_text(path.read_text(encoding="utf-8").replace("Revised", "REVISED"), encoding="utf-8")
    commit_all(proj, "newer capture, tampered")
    run = run_cli("context", "--source", A, cwd=proj)
    assert run.code == 0 and "Revised" not in run.out and "REVISED" not in run.out
    assert f"{A}: 1 revision file of it fails verification and is not given" in run.err, run.err
    notes = citelint.Project.open(proj).context([A], format="text").notes
    assert any("fails verification" in n for n in notes)


def test_revision_batch_and_usage_errors(proj: Path) -> None:
    newer = record(proj, A, "Revenue rose 13% in the third quarter.", when="2026-12-02T10:00:00Z")
    commit_all(proj, "newer")
    assert f"(capture {newer})" in run_cli("context", "--source", A, cwd=proj).out
    old = sha256_hex(TEXT_A)
    run = run_cli("context", "--source", A, "--revision", old[:8], cwd=proj)
    assert run.code == 0 and f"(capture {old})" in run.out and newer not in run.out
    for argv, message in [
        (("--source", "https://example.org/other"), "not an approved source"),
        (("--revision", old[:8]), "give the sources too"),
        (("--source", A, "--revision", "ffffffff"), "names no committed, verified revision"),
        (("--source", A, "--revision", "xyz"), "not a capture digest"),
        (("--batch", "0123456789"), "no capture of the store is of that batch"),
        (("--batch", "0123456789", "--source", A), "cannot be combined"),
    ]:
        run = run_cli("context", *argv, cwd=proj)
        assert (run.code, run.out) == (2, ""), argv
        assert message in run.err, (argv, run.err)
    assert run_cli("context", "--max-chars", "0", cwd=proj).code == 2


def test_revisions_tied_for_newest_are_not_picked_by_digest(proj: Path) -> None:
    record(proj, C, "One text.", when="2026-12-02T10:00:00Z")
    record(proj, C, "Another text.", when="2026-12-02T10:00:00Z")
    commit_all(proj, "tie")
    run = run_cli("context", "--source", C, cwd=proj)
    assert run.code == 2 and "share the newest retrievedAt" in run.err and "name one with --revision" in run.err
    run = run_cli("context", "--source", C, "--revision", sha256_hex("One text.")[:10], cwd=proj)
    assert run.code == 0 and "One text." in run.out and "Another" not in run.out


def test_max_chars_drops_whole_sources_and_names_them(proj: Path) -> None:
    record(proj, C, "Short.")
    commit_all(proj, "c")
    budget = len(TEXT_A) + len("Short.")
    run = run_cli("context", "--max-chars", str(budget), cwd=proj)
    assert run.code == 0
    # B does not fit after A and is dropped whole; C, later and shorter, still fits.
    assert TEXT_A in run.out and "Short." in run.out and B not in run.out
    assert run.err.count("dropped") == 2  # the line naming it, and the count
    assert f"citelint: dropped {B} ({len(TEXT_B)} characters): it does not fit in --max-chars {budget}" in run.err
    run = run_cli("context", "--max-chars", "5", cwd=proj)
    assert (run.code, run.out) == (1, "") and "nothing to give: none fits in --max-chars" in run.err


def test_nothing_to_give_outside_git_is_exit_1(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    (root / "citelint.yaml").write_text(json.dumps({"sources": [A]}), encoding="utf-8")
    run = run_cli("context", cwd=root)
    assert (run.code, run.out) == (1, "") and "no approved source has a committed, verified capture" in run.err
    record(root, A, TEXT_A)  # outside a git work tree, a verified capture is all there is to ask
    assert TEXT_A in run_cli("context", cwd=root).out


# --------------------------------------------------------------------------- the prompt, end to end

HELP = "https://help.petworld.example/"


def slug(title: str) -> str:
    return HELP + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


@pytest.fixture
def helpcenter(tmp_path: Path) -> tuple[Path, dict, dict]:
    """The corpus' recorded help-centre request and response: each document captured as the
    page it stands for, committed; the request rebuilt with ``citelint context`` blocks, and
    the response as the model answers it (citing each document by the title it was given)."""
    request = json.loads(corpus_path("api-citations", "anthropic-messages-char-location-helpcenter.cookbook"
                                                      ".request.json").read_text(encoding="utf-8"))
    response = json.loads(corpus_path("api-citations", "anthropic-messages-char-location-helpcenter.cookbook"
                                                       ".response.json").read_text(encoding="utf-8"))
    content = request["messages"][0]["content"]
    documents = [b for b in content if b.get("type") == "document"]
    root = project(tmp_path / "help", [slug(d["title"]) for d in documents])
    for d in documents:
        record(root, slug(d["title"]), d["source"]["data"])
    commit_all(root, "captures")
    run = run_cli("context", "--format", "anthropic", cwd=root)
    assert run.code == 0, run.err
    blocks = json.loads(run.out)
    assert [b["source"]["data"] for b in blocks] == [d["source"]["data"] for d in documents]
    request["messages"][0]["content"] = blocks + [b for b in content if b.get("type") != "document"]
    for block in response["content"]:
        for cite in block.get("citations") or []:
            cite["document_title"] = slug(cite["document_title"])
    return root, request, response


def import_and_check(root: Path, request: dict, response: dict) -> tuple[object, object]:
    (root / "request.json").write_text(json.dumps(request), encoding="utf-8")
    (root / "response.json").write_text(json.dumps(response), encoding="utf-8")
    imported = run_cli("import", "anthropic", "response.json", "--request", "request.json",
                       "--out", "reports/answer.md", "--force", cwd=root)
    return imported, run_cli("check", "reports/answer.md", cwd=root)


def test_a_context_request_imports_with_no_source_map_and_checks_clean(helpcenter: tuple[Path, dict, dict]) -> None:
    root, request, response = helpcenter
    imported, checked = import_and_check(root, request, response)
    assert imported.code == 0, imported.err
    assert "not linked" not in imported.err
    answer = (root / "reports" / "answer.md").read_text(encoding="utf-8")
    tracking = slug("Order Tracking Information")
    page = next(b["source"]["data"] for b in request["messages"][0]["content"] if b.get("title") == tracking)
    assert f'({tracking}#:~:text=' in answer and f'"capture:{sha256_hex(page)}")' in answer
    assert checked.code == 0, checked.out


def test_one_changed_character_in_a_cited_text_fails_the_check(helpcenter: tuple[Path, dict, dict]) -> None:
    root, request, response = helpcenter
    cite = next(c for b in response["content"] for c in b.get("citations") or [])
    cite["cited_text"] = cite["cited_text"].replace("tracking number", "tracking numbers", 1)
    imported, checked = import_and_check(root, request, response)
    assert imported.code == 0, imported.err
    assert checked.code == 1 and checked.findings("CL204"), checked.out


def test_a_context_whose_text_was_edited_is_named_on_import(helpcenter: tuple[Path, dict, dict]) -> None:
    root, request, response = helpcenter
    block = next(b for b in request["messages"][0]["content"] if b.get("title") == slug("Order Tracking Information"))
    block["source"]["data"] = block["source"]["data"].replace("PetWorld", "PetWorld Inc.")
    imported, checked = import_and_check(root, request, response)
    assert "names capture" in imported.err and "but its text is capture" in imported.err
    assert checked.code == 1


def test_capture_from_request_resolves_a_context_request_with_no_source_map(
        helpcenter: tuple[Path, dict, dict]) -> None:
    root, request, _ = helpcenter
    (root / "request.json").write_text(json.dumps(request), encoding="utf-8")
    run = run_cli("capture", "--from-request", "anthropic", "request.json", cwd=root)
    assert run.code == 0, run.out + run.err
    tracking = slug("Order Tracking Information")
    assert f'document 3 "{tracking}": already captured: {tracking} revision' in run.out
    assert run.lines[-1] == "10 document(s): 10 already captured"


def test_batch_gives_a_from_request_batch_in_request_order(tmp_path: Path) -> None:
    name = "anthropic-messages-char-location-helpcenter.cookbook.request.json"
    request = json.loads(corpus_path("api-citations", name).read_text(encoding="utf-8"))
    sent = [b for b in request["messages"][0]["content"] if b.get("type") == "document"]
    root = project(tmp_path / "batch", [slug(d["title"]) for d in sent])
    (root / "request.json").write_text(json.dumps(request), encoding="utf-8")
    (root / "map.json").write_text(json.dumps({d["title"]: slug(d["title"]) for d in sent}), encoding="utf-8")
    run = run_cli("capture", "--from-request", "anthropic", "request.json", "--source-map", "map.json", cwd=root)
    assert run.code == 0 and run.lines[-1] == "10 document(s): 10 captured", run.out + run.err
    commit_all(root, "batch")
    digest = sha256_hex((root / "request.json").read_bytes())
    run = run_cli("context", "--batch", digest[:12], "--format", "anthropic", cwd=root)
    assert run.code == 0, run.err
    blocks = json.loads(run.out)
    assert [(b["title"], b["source"]["data"]) for b in blocks] == [(slug(b["title"]), b["source"]["data"])
                                                                  for b in sent]


def test_sources_and_revisions_are_given_in_the_order_named(proj: Path) -> None:
    run = run_cli("context", "--source", B, A, "--revision", sha256_hex(TEXT_A)[:6], cwd=proj)
    assert run.code == 0, run.err
    assert run.out.splitlines()[2:4] == [f"[1] {B} (capture {sha256_hex(TEXT_B)})",
                                         f"[2] {A} (capture {sha256_hex(TEXT_A)})"]
    assert run_cli("context", "--source", B, "--source", A, cwd=proj).out == \
        run_cli("context", "--source", B, A, cwd=proj).out


# --------------------------------------------------------------------------- the same from Python

def digest(text: str) -> str:
    """The capture digest of ``text``: its sha256, as the store names a revision."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("fmt", ["anthropic", "openai", "text", "markdown"])
def test_project_context_is_what_the_command_prints(proj: Path, fmt: str) -> None:
    import citelint

    ctx = citelint.Project.open(proj).context(format=fmt)
    run = run_cli("context", "--format", fmt, cwd=proj)
    assert run.code == 0, run.err
    assert ctx.text == run.out
    assert ctx.value == (json.loads(run.out) if fmt in ("anthropic", "openai") else run.out)
    assert ctx.documents == ((A, digest(TEXT_A)), (B, digest(TEXT_B)))
    assert ctx.dropped == () and ctx.chars == len(TEXT_A) + len(TEXT_B)
    assert ctx.notes == (f"left out {C}: no capture yet",)
    named = citelint.Project.open(proj).context([B, A], revisions=[digest(TEXT_A)[:6]], format=fmt)
    assert named.text == run_cli("context", "--format", fmt, "--source", B, A, "--revision",
                                 digest(TEXT_A)[:6], cwd=proj).out


def test_project_context_max_chars_and_errors(proj: Path) -> None:
    import citelint

    record(proj, C, "Short.")
    commit_all(proj, "c")
    project = citelint.Project.open(proj)
    budget = len(TEXT_A) + len("Short.")
    ctx = project.context(format="anthropic", max_chars=budget)
    assert ctx.dropped == (B,) and [b["title"] for b in ctx.value] == [A, C]
    assert ctx.text == run_cli("context", "--format", "anthropic", "--max-chars", str(budget), cwd=proj).out
    for kwargs, message in [
        ({"sources": ["https://example.org/other"]}, "not an approved source"),
        ({"max_chars": 5}, "nothing to give: none fits in max_chars"),
        ({"max_chars": 0}, "not a positive whole number"),
        ({"format": "html"}, "unknown context format"),
        ({"sources": A}, "takes a list"),
        ({"batch": "0123456789", "sources": [A]}, "cannot be combined"),
    ]:
        with pytest.raises(citelint.UsageError, match=message):
            project.context(**kwargs)


@pytest.mark.parametrize("as_", ["markdown", "facts"])
def test_project_import_response_is_what_the_command_writes(helpcenter: tuple[Path, dict, dict], as_: str) -> None:
    import citelint

    root, request, response = helpcenter
    out = "reports/answer.md" if as_ == "markdown" else "reports/answer.json"
    (root / "request.json").write_text(json.dumps(request), encoding="utf-8")
    (root / "response.json").write_text(json.dumps(response), encoding="utf-8")
    run = run_cli("import", "anthropic", "response.json", "--request", "request.json", "--as", as_,
                  "--out", out, cwd=root)
    assert run.code == 0, run.err
    project = citelint.Project.open(root)
    before = sorted((p.as_posix(), p.stat().st_mtime_ns) for p in root.rglob("*") if ".git" not in p.parts)
    for given in (response, json.dumps(response), json.dumps(response).encode("utf-8")):
        imported = project.import_response(given, request=request, as_=as_)
        assert imported.text == (root / out).read_text(encoding="utf-8")
    # Nothing was written: no capture, no report, no file touched.
    assert sorted((p.as_posix(), p.stat().st_mtime_ns) for p in root.rglob("*") if ".git" not in p.parts) == before
    assert imported.kind == as_ and imported.unlinked == () and imported.citations == imported.items
    # The API wrote nothing: only the command's report is in reports/.
    assert sorted(p.name for p in (root / "reports").iterdir()) == [Path(out).name]


def test_project_import_response_refuses_and_marks(helpcenter: tuple[Path, dict, dict]) -> None:
    import citelint

    root, request, response = helpcenter
    project = citelint.Project.open(root)
    # With no request, the titles name no capture; without a source map nothing can link them.
    with pytest.raises(citelint.UsageError, match="citations not linked: pass source_map"):
        project.import_response(response)
    marked = project.import_response(response, allow_unlinked=True)
    assert marked.unlinked and "not linked]" in marked.text and marked.notes
    assert any("source_map" in note for note in marked.notes) and not any("--" in n for n in marked.notes)
    titles = {c["document_title"]: c["document_title"] for b in response["content"] for c in b.get("citations") or []}
    mapped = project.import_response(response, source_map=titles)
    assert mapped.unlinked == ()
    for kwargs, message in [
        ({"response": {"choices": []}}, "the anthropic importer reads"),
        ({"response": response, "vendor": "bard"}, "not one of"),
        ({"response": response, "as_": "html"}, "not one of"),
        ({"response": b"{not json"}, "response"),
        ({"response": 42}, "takes a mapping, str or bytes"),
        ({"response": response, "source_map": {"0": "ftp://example.org/x"}}, "URL"),
    ]:
        with pytest.raises(citelint.UsageError, match=message) as raised:
            project.import_response(**kwargs)
        # The API's messages name its own arguments, never the command line's.
        assert "citelint import" not in str(raised.value) and "--" not in str(raised.value)
