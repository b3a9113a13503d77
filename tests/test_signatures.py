"""Signed evidence (DESIGN §9, docs/evidence.md): real SSH keys made by
``ssh-keygen`` in a temporary directory, real capture stores, real checks.

Rules CL401 (capture-unsigned), CL402 (signature-invalid), CL403
(signer-not-allowed); ``citelint attest`` and ``capture --sign-key``; the
SSHSIG implementation cross-checked with ``ssh-keygen -Y`` both ways.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit import watching
from citelint.evidence.sshsig import PublicKey, Signature, armor, dearmor, verify
from citelint.evidence.verify import PAYLOAD_TYPE, pae, parse_envelope, signature_files
from citelint.store.captures import capture_path, sha256_hex
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, Repo, Run, run_cli
from gitrepo import commit_all, init_repo

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")

KEY_TYPES = {"ed25519": ["-t", "ed25519"], "ecdsa": ["-t", "ecdsa", "-b", "256"],
             "ecdsa384": ["-t", "ecdsa", "-b", "384"], "ecdsa521": ["-t", "ecdsa", "-b", "521"],
             "rsa": ["-t", "rsa", "-b", "3072"]}


def make_key(directory: Path, name: str, kind: str = "ed25519", passphrase: str = "") -> Path:
    """A new SSH key pair made by ssh-keygen: returns the private key's path."""
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", *KEY_TYPES[kind], "-N", passphrase, "-C", name, "-f", str(path)],
                   check=True, capture_output=True)
    return path


def public(key: Path) -> str:
    return " ".join(key.with_suffix(".pub").read_text().split()[:2])


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("keys")
    made = {kind: make_key(directory, f"job-{kind}", kind) for kind in KEY_TYPES}
    made["author"] = make_key(directory, "author")
    return made


def signed_repo(repo: Repo, key: Path, *, require: bool = True, options: str = 'namespaces="citelint"') -> Repo:
    """``repo`` with evidence configured for ``key`` and a report citing SOURCE_A."""
    repo.write("allowed_signers", f"capture-job@example.org {options} {public(key)}\n")
    repo.config(evidence={"allowed_signers": "allowed_signers", "require_signatures": require})
    repo.report(repo.cited())
    return repo


def attest(repo: Repo, key: Path, *sources: str) -> None:
    """Sign, as the trusted stage does: the current capture of each of ``sources``
    named by its digest, or with none named, every capture (``--all``)."""
    named = [arg for s in sources for arg in ("--revision", repo.records[s].sha256[:12])]
    run = run_cli("attest", *sources, *(named or ["--all"]), "--sign-key", str(key), cwd=repo.root)
    assert run.code == 0, run.out + run.err


def in_reports(run: Run, rule: str) -> list[str]:
    """The findings of ``rule`` in report files (not those at capture files)."""
    return [f for f in run.findings(rule) if f.startswith("reports/")]


def drop_capture(repo: Repo, source: str) -> None:
    """Remove ``source``'s capture, so a test about another source sees no unsigned capture."""
    capture_path(repo.root / "captures", source, repo.records.pop(source).sha256).unlink()


def sig_of(repo: Repo, source: str = SOURCE_A) -> Path:
    path = capture_path(repo.root / "captures", source, repo.records[source].sha256)
    (found,) = signature_files(path.parent, repo.records[source].sha256)
    return found


@pytest.mark.parametrize("kind", list(KEY_TYPES))
def test_signed_capture_is_accepted(repo: Repo, keys: dict[str, Path], kind: str) -> None:
    signed_repo(repo, keys[kind])
    attest(repo, keys[kind])
    run = repo.check()
    assert run.code == 0, run.out
    assert not any(f in run.out for f in ("CL401", "CL402", "CL403"))
    assert "1 accepted citation to review for meaning" in run.out


def test_unsigned_capture_with_and_without_require_signatures(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"], require=False)
    run = repo.check()
    assert run.code == 0 and "CL401" not in run.out, run.out
    signed_repo(repo, keys["ed25519"], require=True)
    run = repo.check()
    (cited,) = in_reports(run, "CL401")
    assert run.code == 1 and "accepted citation" not in run.out, run.out
    assert f"citelint attest --sign-key KEY {SOURCE_A} --revision {repo.records[SOURCE_A].sha256[:12]}" in cited
    # Every capture nobody signed is reported at its file too, cited or not.
    assert len(run.findings("CL401")) == 3


def test_record_altered_after_signing(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"])
    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    obj = json.loads(path.read_text())
    obj["retrievedAt"] = "2026-07-02T00:00:00Z"  # still a valid record: only the signature can tell
    path.write_text(json.dumps(obj, separators=(",", ":")) + "\n")
    run = repo.check()
    assert run.code == 1 and "CL103" not in run.out
    (finding,) = run.findings("CL402")
    assert "altered after signing" in finding


def test_signature_copied_from_another_capture(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_B)
    donor = sig_of(repo, SOURCE_B)
    target = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    shutil.copy(donor, target.parent / f"{repo.records[SOURCE_A].sha256}.{donor.name.split('.')[1]}.sig")
    run = repo.check()
    (finding,) = run.findings("CL402")
    assert run.code == 1 and "about another capture" in finding and "copied" in finding


def test_signature_altered(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"])
    sig = sig_of(repo)
    envelope = json.loads(sig.read_text())
    raw = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    raw[-1] ^= 1  # the last byte of the signature itself
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(raw)).decode()
    sig.write_text(json.dumps(envelope) + "\n")
    (finding,) = repo.check().findings("CL402")
    assert "does not verify" in finding


def test_signer_not_in_allowed_signers(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["author"])  # the report author's own key
    run = repo.check()
    (finding,) = run.findings("CL403")
    assert run.code == 1 and "is not in the allowed signers" in finding and "CL401" not in run.out


def test_signer_allowed_for_another_namespace(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"], options='namespaces="git"')
    attest(repo, keys["ed25519"])
    (finding,) = repo.check().findings("CL403")
    assert "namespaces 'git' only, not 'citelint'" in finding


@pytest.mark.parametrize("options, verdict", [
    ('valid-before="20260731Z"', "allows it until 2026-07-31T00:00:00Z"),
    ('valid-after="20260901Z"', "allows it from 2026-09-01T00:00:00Z on"),
    ('valid-after="20260701Z",valid-before="20260901Z"', None),
])
def test_key_validity_window_is_judged_at_signed_at(repo: Repo, keys: dict[str, Path], options: str,
                                                    verdict: str | None) -> None:
    from citelint.capture.sign import load_key, sign_capture

    signed_repo(repo, keys["ed25519"], options=options)
    drop_capture(repo, SOURCE_B)
    done = sign_capture(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256,
                        load_key(str(keys["ed25519"]), None), signed_at="2026-08-01T00:00:00Z")
    assert done.status == "signed"
    run = repo.check()
    if verdict is None:
        assert run.code == 0, run.out
    else:
        (finding,) = run.findings("CL403")
        assert verdict in finding and "signed at 2026-08-01T00:00:00Z" in finding


def test_signed_at_before_retrieved_at_is_refused(repo: Repo, keys: dict[str, Path]) -> None:
    from citelint.capture.sign import load_key, sign_capture

    done = sign_capture(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256,
                        load_key(str(keys["ed25519"]), None), signed_at="2026-06-01T00:00:00Z")
    assert done.status == "refused" and "before the capture's retrievedAt" in done.reason
    assert not list((repo.root / "captures" / sha256_hex(SOURCE_A)).glob("*.sig"))


def test_attest_refuses_a_capture_whose_content_does_not_verify(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    path = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    path.write_text(path.read_text().replace("42 items", "43 items"))
    run = run_cli("attest", "--all", "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 1
    assert "not signed: https://example.org/a.txt" in run.out and "does not verify" in run.out
    assert "1 signed" in run.out  # SOURCE_B's capture is fine
    assert not list(path.parent.glob("*.sig"))


def test_attest_again_is_already_signed_and_a_squatter_is_refused(repo: Repo, keys: dict[str, Path]) -> None:
    attest(repo, keys["ed25519"], SOURCE_A)
    run = run_cli("attest", SOURCE_A, "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 0 and "already signed" in run.out
    sig = sig_of(repo)
    sig.write_text("{}\n")
    run = run_cli("attest", SOURCE_A, "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 1 and "already exists but does not verify" in run.out
    assert sig.read_text() == "{}\n"  # never replaced


def test_encrypted_key_is_refused_clearly(repo: Repo, tmp_path: Path) -> None:
    key = make_key(tmp_path, "locked", passphrase="secret words")
    run = run_cli("attest", "--sign-key", str(key), cwd=repo.root)
    assert run.code == 2 and "encrypted with a passphrase" in run.err and "Traceback" not in run.err


def test_attest_without_a_key_is_a_usage_error(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITELINT_SIGN_KEY", raising=False)
    run = run_cli("attest", cwd=repo.root)
    assert run.code == 2 and "--sign-key" in run.err


def test_capture_signs_what_it_writes_with_the_key_from_the_environment(
        repo: Repo, keys: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    signed_repo(repo, keys["ed25519"])
    new = "https://example.org/c.txt"
    repo.config(sources=[SOURCE_A, SOURCE_B, new],
                evidence={"allowed_signers": "allowed_signers", "require_signatures": True})
    body = repo.write("c.txt", "Third source: 99 items were counted in the audit.\n")
    monkeypatch.setenv("CITELINT_SIGN_KEY", keys["ed25519"].read_text())  # the key itself, as a CI secret
    run = run_cli("capture", "--source", new, "--from-file", str(body), cwd=repo.root)
    assert run.code == 0, run.out + run.err
    assert run.lines[0].startswith("captured: ") and run.lines[1].startswith("signed: ")
    sha = run.lines[0].split(" revision ")[1].split()[0]
    repo.report({"state": "cited", "label": "sales", "source": new, "captureSha256": sha,
                 "snippet": "99 items were counted in the audit"})
    drop_capture(repo, SOURCE_A)
    drop_capture(repo, SOURCE_B)
    assert repo.check().code == 0


def test_capture_does_not_sign_a_record_it_did_not_write(repo: Repo, keys: dict[str, Path]) -> None:
    """A planted capture whose text the trusted job later fetches again: the writer finds the
    file already there (its retrievedAt chosen by whoever planted it) and the run does not sign it."""
    signed_repo(repo, keys["ed25519"])
    planted = repo.capture(SOURCE_A, "Planted: 42 items, dated far in the future.", when="2099-01-01T00:00:00Z")
    body = repo.write("same.txt", planted.text)
    run = run_cli("capture", "--source", SOURCE_A, "--from-file", str(body), "--sign-key", str(keys["ed25519"]),
                  cwd=repo.root)
    assert run.code == 0, run.out + run.err
    assert run.lines[0].startswith("already captured: ")
    assert run.lines[1].startswith(f"not signed: {SOURCE_A} revision {planted.sha256}: the capture existed")
    assert f"citelint attest {SOURCE_A} --revision {planted.sha256[:12]}" in run.lines[1]
    assert not signature_files(capture_path(repo.root / "captures", SOURCE_A, planted.sha256).parent,
                               planted.sha256)


def test_markdown_link_grounded_only_by_unsigned_captures(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    repo.write("reports/note.md", f"See [the source]({SOURCE_A}).\n")
    attest(repo, keys["ed25519"], SOURCE_A)
    assert not in_reports(repo.check(), "CL401")
    repo.write("reports/note.md", f"See [the source]({SOURCE_B}).\n")
    run = repo.check("--fix")
    (finding,) = in_reports(run, "CL401")
    assert "reports/note.md:1:" in finding and "--fix leaves this link alone" in finding
    assert (repo.root / "reports/note.md").read_text() == f"See [the source]({SOURCE_B}).\n"


def test_quotation_in_an_unsigned_revision_is_cl401_though_another_is_signed(repo: Repo,
                                                                             keys: dict[str, Path]) -> None:
    """The link's source has a signed revision, so the link is grounded; the quotation
    names (by its title) a newer revision nobody signed: CL401 at the link."""
    from citelint.links.directive import format_text_directive

    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    old = repo.records[SOURCE_A].sha256
    newer = repo.capture(SOURCE_A, "Synthetic source: 42 items. A later revision nobody signed.",
                         when="2026-08-01T00:00:00Z")
    quote = format_text_directive("A later revision nobody signed.")
    repo.write("reports/note.md", f'See [the source]({SOURCE_A}#{quote} "capture:{newer.sha256}").\n')
    run = repo.check()
    (finding,) = in_reports(run, "CL401")
    assert finding.startswith("reports/note.md:1:") and newer.sha256[:12] in finding
    signed_quote = format_text_directive("Synthetic source: 42 items")
    repo.write("reports/note.md", f'See [the source]({SOURCE_A}#{signed_quote} "capture:{old}").\n')
    assert not in_reports(repo.check(), "CL401")


def test_signature_modified_in_a_later_commit_is_cl301(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    init_repo(repo.root)
    commit_all(repo.root, "signed evidence")
    sig = sig_of(repo)
    sig.write_bytes(sig.read_bytes().replace(b'"keyid":"SHA256:', b'"keyid":"SHA256:x'))
    run = repo.check("--base", "HEAD")
    (finding,) = run.findings("CL301")
    assert sig.name in finding and run.code == 1


def test_allowed_signers_file_errors_are_usage_errors(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"], options="cert-authority")
    run = repo.check()
    assert run.code == 2 and "allowed_signers:1: cert-authority lines" in run.err
    signed_repo(repo, keys["ed25519"], options='valid-after="20260101"')
    run = repo.check()
    assert run.code == 2 and "add Z" in run.err
    repo.config(evidence={"require_signatures": True})
    run = repo.check()
    assert run.code == 2 and "needs evidence.allowed_signers" in run.err


def test_check_with_signatures_writes_nothing_and_opens_no_socket(repo: Repo, keys: dict[str, Path],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    repo.write("reports/note.md", f"See [the source]({SOURCE_A}) and [b]({SOURCE_B}).\n")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with watching() as events:
        run = run_cli("check", cwd=repo.root)
    assert run.code == 1 and "CL401" in run.out  # SOURCE_B's link: checked, not skipped
    assert events.writes == []
    assert events.read(str(sig_of(repo).resolve()))


def test_no_verifier_available_is_cl402_naming_the_extra(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    # A real run without cryptography importable and without ssh-keygen on PATH.
    code = "import sys; sys.modules['cryptography'] = None; from citelint.cli import main; sys.exit(main(['check']))"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env.update(PATH="", PYTHONPATH=str(REPO_ROOT))
    done = subprocess.run([sys.executable, "-c", code], cwd=repo.root, env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "CL402" in done.stdout and "pip install 'citelint-provenance[sign]'" in done.stdout


# --------------------------------------------------------------------------- SSHSIG against ssh-keygen

@pytest.mark.parametrize("kind", list(KEY_TYPES))
def test_our_signature_verifies_with_ssh_keygen(repo: Repo, keys: dict[str, Path], kind: str,
                                                tmp_path: Path) -> None:
    attest(repo, keys[kind], SOURCE_A)
    payload, sig = parse_envelope(sig_of(repo).read_bytes())
    (tmp_path / "signers").write_text(f"job {public(keys[kind])}\n")
    (tmp_path / "msg.sig").write_text(armor(sig.raw))
    done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(tmp_path / "signers"), "-I", "job",
                           "-n", "citelint", "-s", str(tmp_path / "msg.sig")],
                          input=pae(PAYLOAD_TYPE, payload), capture_output=True)
    assert done.returncode == 0, done.stderr
    assert b'Good "citelint" signature for job' in done.stdout
    done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(tmp_path / "signers"), "-I", "job",
                           "-n", "citelint", "-s", str(tmp_path / "msg.sig")],
                          input=pae(PAYLOAD_TYPE, payload + b" "), capture_output=True)
    assert done.returncode != 0


@pytest.mark.parametrize("kind", list(KEY_TYPES))
def test_ssh_keygen_signature_verifies_with_us(keys: dict[str, Path], kind: str) -> None:
    message = b"DSSEv1 28 application/vnd.in-toto+json 2 {}"
    done = subprocess.run(["ssh-keygen", "-Y", "sign", "-q", "-f", str(keys[kind]), "-n", "citelint"],
                          input=message, capture_output=True, check=True)
    sig = Signature.parse(dearmor(done.stdout.decode()))
    assert sig.public_key == PublicKey.from_openssh(public(keys[kind]))
    for backend in ("cryptography", "ssh-keygen"):
        assert verify(sig, message, "citelint", using=backend)
        assert not verify(sig, message + b"x", "citelint", using=backend)
    assert not verify(sig, message, "git")


@pytest.mark.parametrize("kind", list(KEY_TYPES))
def test_fallback_signing_with_ssh_keygen_verifies_in_process(keys: dict[str, Path], kind: str) -> None:
    from citelint.capture.sign import load_key

    key = load_key(str(keys[kind]), None)
    blob = key._sign_ssh_keygen(b"message", "citelint")  # the fallback path, taken where cryptography is missing
    assert verify(Signature.parse(blob), b"message", "citelint", using="cryptography")
    assert Signature.parse(key._sign_cryptography(b"message", "citelint")).public_key == key.public_key


def test_sshsig_parser_refuses_malformed_blobs(keys: dict[str, Path]) -> None:
    from citelint.evidence.sshsig import SignatureFormatError

    done = subprocess.run(["ssh-keygen", "-Y", "sign", "-q", "-f", str(keys["ed25519"]), "-n", "citelint"],
                          input=b"m", capture_output=True, check=True)
    raw = dearmor(done.stdout.decode())
    for bad in (b"SSHSIX" + raw[6:], raw[:-1], raw + b"\0", raw[:10]):
        with pytest.raises(SignatureFormatError):
            Signature.parse(bad)


# --------------------------------------------------------------------------- more shapes and hostile files

def test_extracted_capture_statement_carries_extractor_and_raw_digest(repo: Repo, keys: dict[str, Path]) -> None:
    from citelint.store.record import Extractor, make_record
    from citelint.store.writer import write_capture

    record = make_record(SOURCE_A, "Extracted page: 42 items in the visible text.", retrieved_at="2026-07-01T00:00:00Z",
                         content_type="text/html", extractor=Extractor("html-text", "0.6.2", {"encoding": "utf-8"}),
                         raw_sha256="ab" * 32)
    drop_capture(repo, SOURCE_A)  # the plain-text revision: it would stay unsigned
    write_capture(repo.root / "captures", record)
    repo.records[SOURCE_A] = record
    signed_repo(repo, keys["ed25519"])
    repo.report(repo.cited(snippet="Extracted page: 42 items"))
    attest(repo, keys["ed25519"], SOURCE_A, SOURCE_B)
    payload, _ = parse_envelope(sig_of(repo).read_bytes())
    predicate = json.loads(payload)["predicate"]
    assert predicate["extractor"]["name"] == "html-text" and predicate["rawSha256"] == "ab" * 32
    assert repo.check().code == 0


def test_output_is_the_same_for_any_number_of_processes(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    for i in range(6):
        repo.report(repo.cited(), repo.cited(label="sales", source=SOURCE_B, snippet="17 items were sold"),
                    name=f"reports/r{i}.json")
    one, two = repo.check("--jobs", "1"), repo.check("--jobs", "2")
    assert one.out == two.out and one.code == two.code == 1
    assert len(in_reports(one, "CL401")) == 6  # SOURCE_B's capture, once per report citing it
    assert len(one.findings("CL401")) == 7  # and once at its file


@pytest.mark.parametrize("plant", ["directory", "symlink", "huge", "not json", "two signatures", "empty"])
def test_hostile_signature_files_are_cl402_never_a_traceback(repo: Repo, keys: dict[str, Path], plant: str) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    sig = sig_of(repo)
    good = sig.read_bytes()
    sig.unlink()
    if plant == "directory":
        sig.mkdir()
    elif plant == "symlink":
        (repo.root / "elsewhere.sig").write_bytes(good)
        sig.symlink_to(repo.root / "elsewhere.sig")
    elif plant == "huge":
        sig.write_bytes(b" " * (1 << 20))
    elif plant == "not json":
        sig.write_bytes(b"\xff\xfe garbage")
    elif plant == "two signatures":
        envelope = json.loads(good)
        envelope["signatures"] *= 2
        sig.write_text(json.dumps(envelope))
    else:
        sig.write_bytes(b"")
    run = repo.check()
    assert run.code == 1 and "Traceback" not in run.err and not run.err, run.err
    (finding,) = run.findings("CL402")
    assert sig.name in finding


def test_ls_lists_signature_key_ids(repo: Repo, keys: dict[str, Path]) -> None:
    attest(repo, keys["ed25519"], SOURCE_A)
    attest(repo, keys["ecdsa"], SOURCE_A)
    run = run_cli("ls", cwd=repo.root)
    row = next(line for line in run.lines if line.startswith(SOURCE_A))
    ids = sorted(p.name.split(".")[1] for p in (repo.root / "captures" / sha256_hex(SOURCE_A)).glob("*.sig"))
    assert row.endswith("\t" + ",".join(ids)) and len(ids) == 2
    assert next(line for line in run.lines if line.startswith(SOURCE_B)).endswith("\t-")
    assert "1 with signature files" in run.out


def test_without_allowed_signers_signatures_are_not_checked(repo: Repo, keys: dict[str, Path]) -> None:
    attest(repo, keys["author"], SOURCE_A)
    repo.report(repo.cited())
    run = repo.check()
    assert run.code == 0 and "CL40" not in run.out


def test_capture_fetch_with_sign_key_signs_each_capture(tmp_path: Path, keys: dict[str, Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from servers import HTTPServer, response

    monkeypatch.delenv("CITELINT_SIGN_KEY", raising=False)
    server = HTTPServer(response(body=b"Fetched source: 64 items were counted on the day.\n"))
    try:
        url = server.url()
        repo = Repo(tmp_path)
        repo.write("allowed_signers", f'job namespaces="citelint" {public(keys["rsa"])}\n')
        repo.config(sources=[url], labels=["count"],
                    evidence={"allowed_signers": "allowed_signers", "require_signatures": True})
        run = run_cli("capture", "--allow-http-loopback", "--sign-key", str(keys["rsa"]), cwd=repo.root)
        assert run.code == 0, run.out + run.err
        assert run.lines[0].startswith("captured: ") and run.lines[1].startswith("signed: "), run.out
        sha = run.lines[0].split(" revision ")[1].split()[0]
        again = run_cli("capture", url, "--allow-http-loopback", "--sign-key", str(keys["rsa"]), cwd=repo.root)
        assert again.code == 0 and again.lines[1].startswith("already signed: "), again.out
    finally:
        server.close()
    repo.report({"state": "cited", "label": "count", "source": url, "captureSha256": sha,
                 "snippet": "64 items were counted on the day"})
    assert repo.check().code == 0


def test_capture_with_an_unusable_key_writes_nothing(repo: Repo, tmp_path: Path) -> None:
    bad = repo.write("not-a-key", "hello\n")
    body = repo.write("c.txt", "Some text that would be captured here.\n")
    run = run_cli("capture", "--source", SOURCE_A, "--from-file", str(body), "--sign-key", str(bad), cwd=repo.root)
    assert run.code == 2 and "not an OpenSSH private key" in run.err
    assert len(list((repo.root / "captures" / sha256_hex(SOURCE_A)).iterdir())) == 1


def test_a_check_without_evidence_settings_loads_no_signature_module(repo: Repo) -> None:
    repo.report(repo.cited())
    probe = ("import io, json, sys\nfrom citelint.cli import main\n"
             "code = main(['check'], stdout=io.StringIO(), stderr=io.StringIO())\n"
             "print(json.dumps([code, sorted(m for m in sys.modules if m.split('.')[0] == 'cryptography' or m in "
             "('citelint.evidence.verify', 'citelint.evidence.sshsig', 'citelint.evidence.allowed_signers', "
             "'citelint.capture.sign'))]))\n")
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    done = subprocess.run([sys.executable, "-c", probe], cwd=repo.root, env=env, capture_output=True, text=True)
    assert json.loads(done.stdout) == [0, []], done.stdout + done.stderr


def test_evidence_config_errors_name_the_key(repo: Repo, tmp_path: Path) -> None:
    repo.config(evidence={"require_signatures": "yes", "allowed_signers": "allowed_signers"})
    run = repo.check()
    assert run.code == 2 and "require_signatures" in run.err
    outside = tmp_path.parent / "outside_signers"
    repo.config(evidence={"allowed_signers": str(outside)})
    run = repo.check()
    assert run.code == 2 and "leads outside the project directory" in run.err
    repo.config(evidence={"allowed_signers": "missing_file"})
    run = repo.check()
    assert run.code == 2 and "missing_file: no such file" in run.err
    repo.config(rules={"CL402": "warning"})
    run = repo.check()
    assert run.code == 2 and "cannot be lowered" in run.err


def test_the_documented_capture_workflow_is_a_valid_github_workflow(tmp_path: Path) -> None:
    text = (REPO_ROOT / "docs" / "evidence.md").read_text(encoding="utf-8")
    block = text.split("```yaml\n# .github/workflows/capture.yml\n", 1)[1].split("```", 1)[0]
    assert "citelint capture --sign-key" in block and "gh pr create" in block
    (tmp_path / "capture.yml").write_text(block, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(tmp_path / "capture.yml")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_attest_names_unapproved_and_uncaptured_sources(repo: Repo, keys: dict[str, Path]) -> None:
    repo.config(sources=[SOURCE_A, SOURCE_B, "https://example.org/never-captured.txt"])
    run = run_cli("attest", "https://example.org/unapproved.txt", "https://example.org/never-captured.txt",
                  "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 1
    assert "not signed: https://example.org/unapproved.txt: not in the config's approved `sources`" in run.out
    assert "not signed: https://example.org/never-captured.txt: no capture of this source to sign" in run.out


def test_fallback_signing_of_a_key_held_in_memory_leaves_no_copy(keys: dict[str, Path], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from citelint.capture.sign import SigningKey

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR (the standard library caches it)
    key = SigningKey(keys["ed25519"].read_text(), None, "$CITELINT_SIGN_KEY")
    blob = key._sign_ssh_keygen(b"message", "citelint")
    assert verify(Signature.parse(blob), b"message", "citelint")
    assert list(tmp_path.iterdir()) == []  # the private copy went with its directory


# --------------------------------------------------------------------------- forged captures and attest

def test_a_capture_nobody_signed_is_cl401_at_its_file_and_attest_will_not_launder_it(
        repo: Repo, keys: dict[str, Path]) -> None:
    """The reproduction: a hand-made capture nobody cites passes review unless
    check reports it; then a default `attest` in the trusted job must not sign it."""
    from citelint.store.record import make_record
    from citelint.store.writer import write_capture

    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"])
    assert repo.check().code == 0
    unapproved = make_record("https://example.org/unapproved.txt", "Not an approved source at all.",
                             retrieved_at="2026-07-01T00:00:00Z")
    write_capture(repo.root / "captures", unapproved)  # outside the approved sources: not listed
    fake = repo.write("fake.txt", "Synthetic source: 420 items, a number nobody measured.\n")
    run = run_cli("capture", "--from-file", str(fake), "--source", SOURCE_A, cwd=repo.root)
    assert run.code == 0, run.out + run.err
    forged = run.lines[0].split(" revision ")[1].split()[0]
    forged_path = capture_path(repo.root / "captures", SOURCE_A, forged)
    rel = forged_path.relative_to(repo.root).as_posix()

    run = repo.check()
    (finding,) = run.findings("CL401")
    assert run.code == 1 and finding.startswith(f"{rel}:1:1: CL401 ")
    assert "nobody signed" in finding and "remove it" in finding and f"--revision {forged[:12]}" in finding

    # The trusted job's routine `attest` refuses it and says how to name it; the rest is already signed.
    run = run_cli("attest", "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 1
    refusal = next(line for line in run.lines if line.startswith("not signed: "))
    assert forged in refusal and f"citelint attest {SOURCE_A} --revision {forged[:12]}" in refusal
    assert "2 already signed, 1 refused" in run.lines[-1]
    assert not signature_files(forged_path.parent, forged)

    # Key rotation: a new key re-signs what the old one signed, and still not the forgery.
    repo.write("allowed_signers", f'capture-job@example.org namespaces="citelint" {public(keys["ed25519"])}\n'
                                  f'capture-job@example.org namespaces="citelint" {public(keys["ecdsa"])}\n')
    run = run_cli("attest", "--sign-key", str(keys["ecdsa"]), cwd=repo.root)
    assert run.code == 1 and "2 signed, 1 refused" in run.lines[-1], run.out
    assert not signature_files(forged_path.parent, forged)

    # A later report citing the forgery fails at the fact too.
    repo.report(repo.cited(captureSha256=forged, snippet="420 items"))
    assert in_reports(repo.check(), "CL401")

    # Named explicitly (a unique prefix), the operator vouches for it.
    run = run_cli("attest", SOURCE_A, "--revision", forged[:8], "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 0 and run.lines[0].startswith(f"signed: {SOURCE_A} revision {forged}"), run.out
    assert repo.check().code == 0


def test_attest_revision_errors(repo: Repo, keys: dict[str, Path]) -> None:
    key = str(keys["ed25519"])
    run = run_cli("attest", "--revision", repo.records[SOURCE_A].sha256, "--sign-key", key, cwd=repo.root)
    assert run.code == 2 and "--revision needs the SOURCE" in run.err
    run = run_cli("attest", SOURCE_A, "--revision", repo.records[SOURCE_A].sha256, "--all", "--sign-key", key,
                  cwd=repo.root)
    assert run.code == 2 and "exclude each other" in run.err
    run = run_cli("attest", SOURCE_A, "--revision", repo.records[SOURCE_A].sha256[:4], "--sign-key", key,
                  cwd=repo.root)
    assert run.code == 1 and "at least 8 hex digits" in run.out
    run = run_cli("attest", SOURCE_A, "--revision", repo.records[SOURCE_B].sha256, "--sign-key", key, cwd=repo.root)
    assert run.code == 1 and f"matches no capture of {SOURCE_A}" in run.out
    assert not list((repo.root / "captures").rglob("*.sig"))


def test_attest_without_allowed_signers_signs_only_named_captures(repo: Repo, keys: dict[str, Path]) -> None:
    run = run_cli("attest", "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 1 and "evidence.allowed_signers, which is not configured" in run.out
    assert not list((repo.root / "captures").rglob("*.sig"))
    run = run_cli("attest", "--all", "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 0 and "2 signed" in run.lines[-1]


def test_attest_help_says_what_all_vouches_for() -> None:
    run = run_cli("attest", "--help")
    assert "vouches for every capture" in " ".join(run.out.split())


# --------------------------------------------------------------------------- hostile signature files, continued

def test_envelope_keyid_must_be_the_keys_fingerprint(repo: Repo, keys: dict[str, Path]) -> None:
    from citelint.evidence.verify import make_envelope

    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"])
    assert repo.check().code == 0
    sig = sig_of(repo)
    payload, parsed = parse_envelope(sig.read_bytes())
    other = PublicKey.from_openssh(public(keys["author"])).fingerprint()
    sig.write_bytes(make_envelope(payload, other, parsed.raw))  # still verifies: only the keyid lies
    run = repo.check()
    (finding,) = run.findings("CL402")
    assert run.code == 1 and f"keyid '{other}' is not the fingerprint" in finding


def test_unlisted_key_is_cl403_before_any_verification(repo: Repo, keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    drop_capture(repo, SOURCE_B)
    attest(repo, keys["author"], SOURCE_A)
    sig = sig_of(repo)
    envelope = json.loads(sig.read_text())
    raw = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    raw[-1] ^= 1  # it would not verify; an unlisted key is refused before that is asked
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(raw)).decode()
    sig.write_text(json.dumps(envelope) + "\n")
    run = repo.check()
    (finding,) = run.findings("CL403")
    assert "is not in the allowed signers" in finding and "CL402" not in run.out


def _check_with_ssh_keygen_only(root: Path) -> subprocess.CompletedProcess[str]:
    """A real `citelint check` that cannot import cryptography, so verification runs ssh-keygen."""
    code = "import sys; sys.modules['cryptography'] = None; from citelint.cli import main; sys.exit(main(['check']))"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)


def test_a_crafted_large_signature_does_not_hang_the_ssh_keygen_fallback(repo: Repo, keys: dict[str, Path]) -> None:
    from citelint.evidence.sshsig import build_blob
    from citelint.evidence.verify import MAX_SIGNATURE_BYTES, make_envelope

    signed_repo(repo, keys["ed25519"])
    drop_capture(repo, SOURCE_B)
    attest(repo, keys["ed25519"], SOURCE_A)
    done = _check_with_ssh_keygen_only(repo.root)
    assert done.returncode == 0, done.stdout + done.stderr  # the fallback verifies a good signature
    sig = sig_of(repo)
    payload, parsed = parse_envelope(sig.read_bytes())
    # A listed key and the largest signature field that keeps the file under the size limit:
    # armoured, it is near a pipe's 64 KiB buffer (and far over it where pipes are made smaller).
    pad = 48 * 1024
    while True:
        blob = build_blob(parsed.public_key, "citelint", "sha512", "ssh-ed25519", b"\0" * pad)
        data = make_envelope(payload, parsed.public_key.fingerprint(), blob)
        if len(data) <= MAX_SIGNATURE_BYTES:
            break
        pad -= 256
    assert len(armor(blob)) > 60 * 1024
    sig.write_bytes(data)
    done = _check_with_ssh_keygen_only(repo.root)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert "CL402" in done.stdout and "the SSH signature is malformed" in done.stdout


def test_ssh_keygen_verification_feeds_a_signature_larger_than_a_pipe(keys: dict[str, Path]) -> None:
    """The fallback itself, given far more than a pipe holds: it answers (False), it does not block."""
    import time

    from citelint.evidence.sshsig import _verify_ssh_keygen

    done = subprocess.run(["ssh-keygen", "-Y", "sign", "-q", "-f", str(keys["ed25519"]), "-n", "citelint"],
                          input=b"m", capture_output=True, check=True)
    good = Signature.parse(dearmor(done.stdout.decode()))
    assert _verify_ssh_keygen(good, b"m", "citelint")
    huge = Signature(good.raw + b"\0" * (2 << 20), good.public_key, good.namespace, good.hash_algorithm,
                     good.algorithm, good.signature)
    start = time.monotonic()
    assert not _verify_ssh_keygen(huge, b"m", "citelint")
    assert time.monotonic() - start < 20


def test_sshsig_blob_size_is_bounded(keys: dict[str, Path]) -> None:
    from citelint.evidence.sshsig import MAX_SIGNATURE_BLOB_BYTES, SignatureFormatError, build_blob

    key = PublicKey.from_openssh(public(keys["ed25519"]))
    with pytest.raises(SignatureFormatError, match="over the"):
        Signature.parse(build_blob(key, "citelint", "sha512", "ssh-ed25519", b"\0" * MAX_SIGNATURE_BLOB_BYTES))
    Signature.parse(build_blob(key, "citelint", "sha512", "ssh-ed25519", b"\0" * 64))


def test_a_failing_signature_beside_a_good_one_is_reported_at_a_plain_link(repo: Repo,
                                                                          keys: dict[str, Path]) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"])
    repo.report()
    repo.write("reports/note.md", f"See [the source]({SOURCE_A}).\n")
    assert repo.check().code == 0
    # The job re-signs with a key the operator has not listed (yet): that file fails beside a good one.
    run_cli("attest", SOURCE_A, "--sign-key", str(keys["author"]), cwd=repo.root)
    assert len(signature_files(sig_of(repo, SOURCE_B).parent.parent / sha256_hex(SOURCE_A),
                               repo.records[SOURCE_A].sha256)) == 2
    run = repo.check()
    (finding,) = run.findings("CL403")
    assert run.code == 1 and finding.startswith("reports/note.md:1:") and "is not in the allowed signers" in finding


# --------------------------------------------------------------------------- allowed-signers lines, as OpenSSH reads th

def _ssh_keygen_accepts(repo: Repo, key: Path, signers: bytes, tmp_path: Path) -> bool:
    """Whether `ssh-keygen -Y verify` accepts the signature `key` made of SOURCE_A's capture under ``signers``."""
    payload, sig = parse_envelope(sig_of(repo).read_bytes())
    (tmp_path / "signers").write_bytes(signers)
    (tmp_path / "msg.sig").write_text(armor(sig.raw))
    done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(tmp_path / "signers"), "-I",
                           "capture-job@example.org", "-n", "citelint", "-s", str(tmp_path / "msg.sig")],
                          input=pae(PAYLOAD_TYPE, payload), capture_output=True)
    return done.returncode == 0


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"])
def test_a_line_break_other_than_newline_does_not_start_an_entry(repo: Repo, keys: dict[str, Path], brk: str,
                                                                 tmp_path: Path) -> None:
    signed_repo(repo, keys["ed25519"])
    drop_capture(repo, SOURCE_B)
    attest(repo, keys["ed25519"], SOURCE_A)
    entry = f'capture-job@example.org namespaces="citelint" {public(keys["ed25519"])}'
    # Hidden in a comment, the entry stays part of the comment, for citelint as for ssh-keygen.
    hidden = f"# the capture job's key{brk}{entry}\n".encode()
    repo.write("allowed_signers", hidden)
    run = repo.check()
    (finding,) = run.findings("CL403")
    assert "is not in the allowed signers" in finding
    assert not _ssh_keygen_accepts(repo, keys["ed25519"], hidden, tmp_path)
    # Inside an entry, the character is a config error naming the file and line.
    repo.write("allowed_signers", f"# signers\n{entry.replace(' ssh-', brk + ' ssh-')}\n".encode())
    run = repo.check()
    assert run.code == 2 and f"allowed_signers:2: the character U+{ord(brk):04X}" in run.err, run.err
    # A CRLF file is read as OpenSSH reads it: one trailing \r is dropped.
    crlf = f"# signers\r\n{entry}\r\n".encode()
    repo.write("allowed_signers", crlf)
    assert repo.check().code == 0
    assert _ssh_keygen_accepts(repo, keys["ed25519"], crlf, tmp_path)


@pytest.mark.parametrize("options", ['namespaces="citelint",namespaces="git"',
                                     'valid-after="20260101Z",valid-after="20260201Z"',
                                     'valid-before="20270101Z",namespaces="citelint",valid-before="20280101Z"'])
def test_an_option_given_twice_is_a_config_error(repo: Repo, keys: dict[str, Path], options: str,
                                                 tmp_path: Path) -> None:
    signed_repo(repo, keys["ed25519"])
    attest(repo, keys["ed25519"], SOURCE_A)
    line = f"capture-job@example.org {options} {public(keys['ed25519'])}\n"
    repo.write("allowed_signers", "# signers\n" + line)
    run = repo.check()
    assert run.code == 2 and "allowed_signers:2: option" in run.err and "given twice" in run.err, run.err
    assert not _ssh_keygen_accepts(repo, keys["ed25519"], line.encode(), tmp_path)  # ssh-keygen refuses it too


def test_from_request_signs_each_document_it_records(repo: Repo, keys: dict[str, Path]) -> None:
    """The trusted stage records what the model saw and signs it in the same step."""
    import json as _json

    signed_repo(repo, keys["ed25519"])
    doc = "https://example.org/doc.txt"
    repo.config(sources=[SOURCE_A, SOURCE_B, doc],
                evidence={"allowed_signers": "allowed_signers", "require_signatures": True})
    request = {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                        "data": "The grass is green. The sky is blue."}, "title": "Doc"},
        {"type": "text", "text": "What colour is the grass?"}]}]}
    repo.write("request.json", _json.dumps(request))
    repo.write("map.json", _json.dumps({"0": doc}))
    run = run_cli("capture", "--from-request", "anthropic", "request.json", "--source-map", "map.json",
                  "--sign-key", str(keys["ed25519"]), cwd=repo.root)
    assert run.code == 0, run.out + run.err
    assert any(line.startswith("signed: ") for line in run.lines), run.out
    sha = next(line for line in run.lines if "captured:" in line).split(" revision ")[1].split()[0]
    assert signature_files(capture_path(repo.root / "captures", doc, sha).parent, sha)
