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

from citelint.store.captures import capture_path, raw_path, sha256_hex
from citelint.store.writer import write_raw
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
    captures = getattr(repo, "captures_dir", root / "captures")
    capture = capture_path(captures, SOURCE_A, repo.records[SOURCE_A].sha256)
    fixed = {
        "capture": capture,
        "raw body": raw_path(captures, SOURCE_A, sha256_hex(b"<p>Synthetic source</p>")),
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

#: (name, the argv before the target, the flag named in the message, the argv after it). A name
#: ending "from outside" runs from a folder outside the project (the argv's {root} is the project's);
#: one ending "broken config" runs where the config does not load and names `captures: evidence`.
OUTPUTS: list[tuple[str, list[str], str, list[str]]] = [
    ("check --output-file", ["check", "--output-file"], "--output-file", []),
    ("check --sarif-file", ["check", "--sarif-file"], "--sarif-file", []),
    ("check --summary-file", ["check", "--summary-file"], "--summary-file", []),
    ("render -o", ["render", "reports/good.json", "-o"], "-o", []),
    ("import --out", ["import", "anthropic", "response.json", "--out"], "--out", []),
    ("import --out --force", ["import", "anthropic", "response.json", "--out"], "--out", ["--force"]),
    ("import --out from outside", ["import", "anthropic", "{root}/response.json", "--out"], "--out", []),
    ("import --out --force from outside", ["import", "anthropic", "{root}/response.json", "--out"], "--out",
     ["--force"]),
    ("check --summary-file, broken config", ["check", "--summary-file"], "--summary-file", []),
    ("check --config --summary-file from outside, broken config",
     ["check", "--config", "{root}/citelint.yaml", "--summary-file"], "--summary-file", []),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name, before, flag, after", OUTPUTS, ids=[o[0] for o in OUTPUTS])
def test_output_writer_refuses_every_hostile_target(project: Repo, name: str, before: list[str], flag: str,
                                                    after: list[str], kind: str) -> None:
    if name.endswith("broken config"):
        # The "did not run" summary is still written: it must protect what the unloadable config names.
        (project.root / "captures").rename(project.root / "evidence")
        project.captures_dir = project.root / "evidence"  # type: ignore[attr-defined]
        project.config(captures="evidence", bogus=1)
    target, watched = _hostile(project, kind, at="out/target.txt" if kind == "symlinked folder" else None)
    others = {p: state(p) for p in (project.outside / "victim.txt", project.root / "docs" / "notes.txt")}  # type: ignore[attr-defined]
    was = state(watched)
    cwd = project.outside if "from outside" in name else project.root  # type: ignore[attr-defined]
    run = run_cli(*(a.format(root=project.root) for a in before), str(target), *after, cwd=cwd)
    why = WHY[kind]
    if name.startswith("import") and kind == "report":
        if after:  # --force replaces a report, but never Markdown over a .json one (check would say CL001)
            assert run.code == 2 and "a .json file is checked as a fact report" in run.err, run.err
            assert state(watched) == was
            return
        why = "it exists; use --force to replace it"
    assert run.code == 2, (run.out, run.err)
    if name.endswith("broken config"):
        config_error, refused = run.err.splitlines()
        assert config_error.startswith("citelint: config error: ") and "unknown key 'bogus'" in config_error
        assert refused.startswith(f"citelint: cannot write {flag} {target}: ") and why in refused, run.err
    else:
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
    for name, argv, _, after in OUTPUTS:
        if name.endswith("broken config"):
            continue
        out = project.root / "docs" / "out.txt"
        out.write_text("old\n")
        cwd = project.outside if "from outside" in name else project.root  # type: ignore[attr-defined]
        code = run_cli(*(a.format(root=project.root) for a in argv), str(out), *after, cwd=cwd).code
        if argv[0] == "import" and not after:
            assert code == 2 and out.read_text() == "old\n"
        else:
            assert code == 0 and out.read_text() != "old\n"
        if argv == ["check", "--summary-file"]:
            assert out.read_text().startswith("old\n")  # the step summary is appended to


def test_a_config_is_refused_wherever_it_is(project: Repo) -> None:
    """No output creates a `citelint.yaml` (it would become a project's
    config), or replaces the config of the project it lands in, outside
    the one the command runs in too: a pyproject.toml with [tool.citelint],
    and both configs of a folder that has two."""
    outside = project.outside  # type: ignore[attr-defined]
    (outside / "both").mkdir()
    for folder in (outside, outside / "both"):
        (folder / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.citelint]\ncaptures = "ev"\n')
    (outside / "both" / "citelint.yaml").write_text("captures: ev\n")
    was = state(outside)
    for name, why in (("new/citelint.yaml", "it is named like a citelint config"),
                      ("pyproject.toml", "it is the config"),
                      ("both/pyproject.toml", "it is named like a citelint config"),
                      ("both/citelint.yaml", "it is the config")):
        (outside / "new").mkdir(exist_ok=True)
        run = run_cli("import", "anthropic", "response.json", "--out", str(outside / name), "--force",
                      cwd=project.root)
        assert run.code == 2 and why in run.err, (name, run.err)
        (outside / "new").rmdir()
        assert state(outside) == was


CLASHES = [
    ["--output-file", "s", "--sarif-file", "s", "--summary-file", "s"],
    ["--output-file", "s", "--sarif-file", "./s"],
    ["--sarif-file", "s", "--summary-file", "{root}/s"],
    ["--output-file", "s", "--summary-file", "docs/../s"],
]


@pytest.mark.parametrize("exists", [False, True])
@pytest.mark.parametrize("argv", CLASHES, ids=[" ".join(c) for c in CLASHES])
def test_two_outputs_naming_one_file_are_refused_before_the_check(project: Repo, argv: list[str],
                                                                  exists: bool) -> None:
    """Each writer would replace or append to the other's file (SARIF with
    Markdown after it): refused, naming both, and nothing is written."""
    target = project.root / "s"
    if exists:
        target.write_text("old\n")
    was = state(target)
    run = run_cli("check", *(a.format(root=project.root) for a in argv), cwd=project.root)
    assert run.code == 2, (run.out, run.err)
    assert run.err.count("\n") == 1 and "they name the same file" in run.err, run.err
    assert f"cannot write {argv[0]} s and {argv[2]} " in run.err, run.err
    assert state(target) == was


def test_two_outputs_through_a_hard_link_are_one_file(project: Repo) -> None:
    (project.root / "s").write_text("old\n")
    os.link(project.root / "s", project.root / "docs" / "t")
    run = run_cli("check", "--output-file", "s", "--sarif-file", "docs/t", cwd=project.root)
    assert run.code == 2 and "they name the same file" in run.err, run.err
    assert (project.root / "s").read_text() == "old\n"


#: (a command naming notes/a.md as an input, with a placeholder for the output flag naming it too)
INPUT_WRITERS = [
    ["check", "notes/a.md", "--output-file", "{}"],
    ["check", "notes/a.md", "--sarif-file", "{}"],
    ["check", "notes/a.md", "--summary-file", "{}"],
    ["check", "-", "--stdin-filename", "notes/a.md", "--output-file", "{}"],
    ["render", "notes/a.md", "-o", "{}"],
    ["import", "anthropic", "notes/a.md", "--out", "{}", "--force"],
    ["import", "anthropic", "response.json", "--source-map", "notes/a.md", "--out", "{}", "--force"],
]


@pytest.mark.parametrize("argv", INPUT_WRITERS, ids=[" ".join(a) for a in INPUT_WRITERS])
@pytest.mark.parametrize("spelling", ["notes/a.md", "./notes/../notes/a.md", "{root}/notes/a.md"])
def test_an_output_never_replaces_a_file_named_as_an_input(project: Repo, monkeypatch: pytest.MonkeyPatch,
                                                           argv: list[str], spelling: str) -> None:
    """A file named on the command line is an input, even one the check skips
    as not a report: no output writes over it, however it is spelled."""
    project.write("notes/a.md", RESPONSE)
    monkeypatch.setattr("sys.stdin", open(project.root / "notes" / "a.md"))  # noqa: SIM115 (closed by pytest)
    was = state(project.root / "notes" / "a.md")
    named = spelling.format(root=project.root)
    run = run_cli(*(a.replace("{}", named) for a in argv), cwd=project.root)
    assert run.code == 2, (run.out, run.err)
    assert "it is an input named on the command line" in run.err, run.err
    assert state(project.root / "notes" / "a.md") == was


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
    # Issue 23: every file is vetted first, so a refused one leaves the other uncreated too.
    assert not os.path.lexists(project.root / "captures" / ".gitattributes")
    if kind != "symlinked folder":
        assert "skipped: captures/.gitattributes (not created: another file was refused" in run.out, run.out


@pytest.mark.parametrize("kind", ["symlinked folder", "file", "fifo"])
def test_init_with_a_hostile_captures_entry_creates_no_config(tmp_path: Path, kind: str) -> None:
    """Issue 23: with `captures` a symlink, a file or a FIFO, init still wrote citelint.yaml and exited 2."""
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "project"
    root.mkdir()
    captures = root / "captures"
    if kind == "symlinked folder":
        captures.symlink_to(outside, target_is_directory=True)
    elif kind == "file":
        captures.write_text("not a folder\n")
    else:
        os.mkfifo(captures)
    run = run_cli("init", cwd=root)
    assert run.code == 2 and "Traceback" not in run.err
    assert "citelint: cannot write captures/.gitattributes: " in run.err, run.err
    assert "skipped: citelint.yaml (not created: another file was refused" in run.out, run.out
    assert sorted(p.name for p in root.iterdir()) == ["captures"] and not list(outside.iterdir())


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
    assert callers == ["citelint/capture/sign.py", "citelint/store/writer.py"], callers


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
