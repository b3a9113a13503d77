"""The two writers against hostile targets, for every command and flag that writes.

Each case puts one hostile thing where a command will write (an existing
capture, a raw body, a signature, the config, a report, a symlink pointing
inside the repository and one pointing out of it, a symlinked folder, a
FIFO, a directory), runs the real command in-process, and asserts the exit
status, the message (naming the flag and file) and that the target, and
whatever a symlink points at, is byte for byte what it was.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from citelint.store.captures import capture_path, raw_path, sha256_hex, write_raw
from conftest import REPO_ROOT, SOURCE_A, Repo, run_cli

#: A constructed Anthropic Messages response with no citations (the writer is what is tested).
RESPONSE = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Forty-two items."}]}
NEW_TEXT = "A new revision of source A: 43 items, measured on 2026-08-01."
SIG_NAME = "0123456789abcdef"


def state(path: Path) -> Any:
    """What is at ``path``, without following it: kind and bytes, a symlink's
    target and the bytes there, a FIFO's mode, a directory's listing."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return ("symlink", os.readlink(path), state(Path(os.path.realpath(path))))
    if stat.S_ISDIR(st.st_mode):
        return ("dir", sorted((p.name, state(p)) for p in path.iterdir()))
    if stat.S_ISFIFO(st.st_mode):
        return ("fifo", stat.S_IMODE(st.st_mode))
    return ("file", path.read_bytes(), stat.S_IMODE(st.st_mode))


@pytest.fixture
def project(repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """The conftest repository with a passing report, a raw body, a signature,
    a response to import, and a file outside the repository."""
    repo.report(repo.cited(), name="reports/good.json")
    write_raw(repo.root / "captures", SOURCE_A, b"<p>Synthetic source</p>")
    capture = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    (capture.parent / f"{capture.stem}.{SIG_NAME}.sig").write_bytes(b"signature bytes")
    repo.write("docs/notes.txt", "inside the repository\n")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "victim.txt").write_text("outside the repository\n")
    repo.write("response.json", RESPONSE)
    repo.outside = outside  # type: ignore[attr-defined]
    return repo


def _hostile(repo: Repo, kind: str, at: str | None = None) -> tuple[Path, Path]:
    """Make the hostile target ``kind`` (at ``at``, relative to the repository,
    where the command's destination is fixed); returns (the path to name, the
    path whose state must not change)."""
    root, outside = repo.root, repo.outside  # type: ignore[attr-defined]
    capture = capture_path(root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    fixed = {
        "capture": capture,
        "raw body": raw_path(root / "captures", SOURCE_A, sha256_hex(b"<p>Synthetic source</p>")),
        "signature": capture.parent / f"{capture.stem}.{SIG_NAME}.sig",
        "config": root / "citelint.yaml",
        "report": root / "reports" / "good.json",
    }
    if kind in fixed:
        return fixed[kind], fixed[kind]
    path = root / (at or f"out.{kind.replace(' ', '-')}")
    if os.path.lexists(path):
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "symlink inside":
        path.symlink_to(root / "docs" / "notes.txt")
    elif kind == "symlink outside":
        path.symlink_to(outside / "victim.txt")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
        (path / "kept.txt").write_text("kept\n")
    elif kind == "symlinked folder":
        # The deps-lsp#1132 route: a committed symlink on the way, not at the end.
        link = path.parent
        assert link != root, "name a target inside a folder"
        link.rmdir()
        link.symlink_to(outside, target_is_directory=True)
        return path, outside
    return path, path


#: Why each hostile target is refused, as the output writer says it.
WHY = {
    "capture": "it is evidence", "raw body": "it is evidence", "signature": "it is evidence",
    "config": "it is the config", "report": "it is a report the config matches",
    "symlink inside": "it is a symlink", "symlink outside": "it is a symlink", "fifo": "it is a FIFO",
    "directory": "it is a directory", "symlinked folder": "on its path is a symlink inside the project",
}
KINDS = list(WHY)

#: (name, the argv before the target, the flag named in the message, the argv after it)
OUTPUTS: list[tuple[str, list[str], str, list[str]]] = [
    ("check --output-file", ["check", "--output-file"], "--output-file", []),
    ("check --sarif-file", ["check", "--sarif-file"], "--sarif-file", []),
    ("check --summary-file", ["check", "--summary-file"], "--summary-file", []),
    ("render -o", ["render", "reports/good.json", "-o"], "-o", []),
    ("import --out", ["import", "anthropic", "response.json", "--out"], "--out", []),
    ("import --out --force", ["import", "anthropic", "response.json", "--out"], "--out", ["--force"]),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name, before, flag, after", OUTPUTS, ids=[o[0] for o in OUTPUTS])
def test_output_writer_refuses_every_hostile_target(project: Repo, name: str, before: list[str], flag: str,
                                                    after: list[str], kind: str) -> None:
    target, watched = _hostile(project, kind, at="out/target.txt" if kind == "symlinked folder" else None)
    others = {p: state(p) for p in (project.outside / "victim.txt", project.root / "docs" / "notes.txt")}  # type: ignore[attr-defined]
    was = state(watched)
    run = run_cli(*before, str(target), *after, cwd=project.root)
    why = WHY[kind]
    if name.startswith("import") and kind == "report":
        if after:  # --force replaces a report, but never Markdown over a .json one (check would say CL001)
            assert run.code == 2 and "a .json file is checked as a fact report" in run.err, run.err
            assert state(watched) == was
            return
        why = "it exists; use --force to replace it"
    assert run.code == 2, (run.out, run.err)
    assert run.err.startswith(f"citelint: cannot write {flag} {target}: ") and why in run.err, run.err
    assert "Traceback" not in run.err
    assert state(watched) == was
    assert {p: state(p) for p in others} == others
    assert not [p for p in project.root.rglob(".tmp-*")], "a temporary file was left behind"


def test_import_without_force_refuses_an_existing_report_and_the_outputs_replace_regular_files(project: Repo) -> None:
    """The control cases: an ordinary regular file is replaced by every output,
    and an existing report is refused by an import without --force."""
    report = project.root / "reports" / "good.json"
    before = report.read_bytes()
    run = run_cli("import", "anthropic", "response.json", "--out", str(report), cwd=project.root)
    assert run.code == 2 and "it exists; use --force to replace it" in run.err and report.read_bytes() == before
    for _, argv, _, after in OUTPUTS:
        out = project.root / "docs" / "out.txt"
        out.write_text("old\n")
        code = run_cli(*argv, str(out), *after, cwd=project.root).code
        if argv[0] == "import" and not after:
            assert code == 2 and out.read_text() == "old\n"
        else:
            assert code == 0 and out.read_text() != "old\n"
        if argv == ["check", "--summary-file"]:
            assert out.read_text().startswith("old\n")  # the step summary is appended to


def test_a_hard_link_to_evidence_is_never_appended_to_and_a_replace_leaves_the_capture(project: Repo) -> None:
    """A regular file that is another name of a capture (a hard link) is
    refused by --summary-file, which appends, and replaced by --sarif-file
    without touching the capture: a rename gives the name a new file."""
    capture = capture_path(project.root / "captures", SOURCE_A, project.records[SOURCE_A].sha256)
    before = capture.read_bytes()
    alias = project.root / "docs" / "alias.md"
    os.link(capture, alias)
    run = run_cli("check", "--summary-file", str(alias), cwd=project.root)
    assert run.code == 2 and "it has 2 hard links" in run.err and capture.read_bytes() == before
    assert run.err.count("\n") == 1 and run.out == ""  # refused before the check ran
    assert run_cli("check", "--sarif-file", str(alias), cwd=project.root).code == 0
    assert capture.read_bytes() == before and json.loads(alias.read_text())["version"] == "2.1.0"


INIT_AT = {"config": "citelint.yaml", "symlink inside": "citelint.yaml", "symlink outside": "citelint.yaml",
           "fifo": "citelint.yaml", "directory": "citelint.yaml", "symlinked folder": "captures/.gitattributes"}


@pytest.mark.parametrize("kind", list(INIT_AT))
def test_init_only_creates_and_refuses_what_is_not_a_regular_file(project: Repo, kind: str) -> None:
    if kind == "symlinked folder":
        shutil.rmtree(project.root / "captures")
        (project.root / "captures").symlink_to(project.outside, target_is_directory=True)  # type: ignore[attr-defined]
        watched = project.outside  # type: ignore[attr-defined]
    else:
        watched = _hostile(project, kind, at=INIT_AT[kind])[1]
    was = state(watched)
    run = run_cli("init", cwd=project.root)
    assert state(watched) == was
    if kind == "config":
        assert run.code == 0 and "exists: citelint.yaml (left unchanged)" in run.out
        return
    assert run.code == 2 and "Traceback" not in run.err
    where = "captures/.gitattributes: the directory" if kind == "symlinked folder" else "citelint.yaml: "
    assert f"citelint: cannot write {where}" in run.err and WHY[kind] in run.err, run.err


def _sign_name(key: Path) -> str:
    from citelint.capture.sign import load_key

    loaded = load_key(str(key), None)
    assert loaded is not None
    return loaded.public_key.fingerprint_hex()[:16]


EVIDENCE_KINDS = ["symlink inside", "symlink outside", "fifo", "directory", "symlinked folder"]


@pytest.mark.parametrize("kind", EVIDENCE_KINDS)
@pytest.mark.parametrize("command", ["capture", "migrate", "attest"])
def test_evidence_writer_never_writes_through_or_over_a_hostile_entry(project: Repo, command: str, kind: str,
                                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    """capture, migrate and attest write only new evidence: a symlink, FIFO or
    directory at the name they would create, or a symlinked source folder on
    the way, is refused (exit 1, as a refused source or record is) and left as it was."""
    root = project.root
    captures = root / "captures"
    argv: list[str]
    if command == "capture":
        project.write("new.txt", NEW_TEXT)
        dest = capture_path(captures, SOURCE_A, sha256_hex(NEW_TEXT))
        argv = ["capture", "--from-file", "new.txt", "--source", SOURCE_A]
    elif command == "migrate":
        legacy_source = "https://example.org/legacy.txt"
        project.config(sources=[SOURCE_A, legacy_source])
        project.write(f"captures/{sha256_hex(legacy_source)}.json",
                      {"source": legacy_source, "text": NEW_TEXT, "sha256": sha256_hex(NEW_TEXT),
                       "accessedAt": "2026-07-01T00:00:00Z"})
        dest = capture_path(captures, legacy_source, sha256_hex(NEW_TEXT))
        argv = ["migrate"]
    else:
        if shutil.which("ssh-keygen") is None:
            pytest.skip("needs OpenSSH's ssh-keygen")
        key = tmp_path_factory.mktemp("key") / "job"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "job", "-f", str(key)],
                       check=True, capture_output=True)
        sha = project.records[SOURCE_A].sha256
        dest = capture_path(captures, SOURCE_A, sha).parent / f"{sha}.{_sign_name(key)}.sig"
        argv = ["attest", SOURCE_A, "--revision", sha[:12], "--sign-key", str(key)]
    rel = dest.relative_to(root).as_posix()
    if kind == "symlinked folder":
        folder, away = dest.parent, project.outside / "moved"  # type: ignore[attr-defined]
        if command == "attest":
            # The capture it signs is really there, read through the link: only the write is refused.
            shutil.move(folder, away)
        else:
            shutil.rmtree(folder, ignore_errors=True)
            away.mkdir()
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.symlink_to(away, target_is_directory=True)
        watched = away
    else:
        watched = _hostile(project, kind, at=rel)[1]
    was = state(watched)
    run = run_cli(*argv, cwd=root)
    assert run.code == 1, (run.out, run.err)
    assert "Traceback" not in run.out + run.err
    assert state(watched) == was
    text = run.out + run.err
    expected = {"symlink inside": "a symlink", "symlink outside": "a symlink", "fifo": "a FIFO",
                "directory": "a directory", "symlinked folder": "a symlink, not a directory"}[kind]
    if command == "attest" and kind != "symlinked folder":
        # The name is taken by something that is not a signature: reported as one that does not verify.
        assert "already exists but does not verify" in text, text
    else:
        assert expected in text, text
    assert not list(root.rglob(".tmp-*"))


def test_nothing_writes_a_file_but_the_two_writers() -> None:
    """Every write in the package goes through citelint/files.py: no other
    module opens a file for writing, renames, replaces or links one."""
    # os and shutil functions that write, and Path methods that do (str.replace shares Path.replace's
    # name, so a rename is caught as os.replace/os.rename, the spelling the package uses).
    os_writes = {"replace", "rename", "renames", "link", "symlink", "mkfifo", "mknod", "truncate", "fdopen",
                 "copy", "copy2", "copyfile", "copytree", "move", "write"}
    path_writes = {"write_text", "write_bytes", "symlink_to", "hardlink_to", "touch"}
    found = []
    for path in sorted((REPO_ROOT / "citelint").rglob("*.py")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        if rel == "citelint/files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
            if (owner in ("os", "shutil") and name in os_writes) or name in path_writes:
                found.append(f"{rel}:{node.lineno}: {name}")
            elif name == "open" and _opens_for_writing(node):
                found.append(f"{rel}:{node.lineno}: open for writing")
    # Not files: the null device, and the pipe that hands a signature to ssh-keygen.
    allowed = {"citelint/cli/__init__.py", "citelint/evidence/sshsig.py"}
    assert [f for f in found if f.split(":")[0] not in allowed] == [], "\n".join(found)
    assert len([f for f in found if f.split(":")[0] in allowed]) == 3, found
    # The evidence writer's primitive has two callers: write_evidence, and the
    # private key copy ssh-keygen needs (mode 0600, in a temporary directory).
    callers = sorted(path.relative_to(REPO_ROOT).as_posix() for path in (REPO_ROOT / "citelint").rglob("*.py")
                     if path.name != "files.py" and "write_exclusive(" in path.read_text(encoding="utf-8"))
    assert callers == ["citelint/capture/sign.py", "citelint/store/captures.py"], callers


def _opens_for_writing(call: ast.Call) -> bool:
    """An ``open``/``os.open`` call whose mode or flags may write (anything but
    a literal read mode, or flags naming O_WRONLY, O_RDWR, O_CREAT, O_APPEND)."""
    text = ast.unparse(call)
    if any(flag in text for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")):
        return True
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return False
