"""The git process runner (citelint.git.proc): real processes, both ways of starting them.

A stand-in ``git`` on PATH shows what the runner must survive: both pipes
filled far past a pipe buffer at once, a non-zero exit, a signal.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from citelint.git.proc import Git, GitMissing

SCRIPT = """#!{python}
import os, signal, sys
args = sys.argv[1:]
mode = args[-1]
if mode == "flood":
    for i in range(400):
        sys.stdout.write("o" * 1000 + "\\n")
        sys.stderr.write("e" * 1000 + "\\n")
    sys.stdout.flush(); sys.stderr.flush()
    sys.exit(0)
if mode == "fail":
    sys.stderr.write("fatal: no\\n")
    sys.exit(128)
if mode == "signal":
    os.kill(os.getpid(), signal.SIGTERM)
if mode == "echo":
    sys.stdout.write("\\0".join(args) + "\\n" + os.getcwd() + "\\n" + os.environ.get("GIT_LITERAL_PATHSPECS", "-")
                     + " " + os.environ.get("GIT_NO_LAZY_FETCH", "-") + "\\n" + sys.stdin.read())
"""


@pytest.fixture
def fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on PATH (alone) holding a ``git`` that obeys its last argument."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = bin_dir / "git"
    git.write_text(SCRIPT.format(python=sys.executable))
    git.chmod(git.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bin_dir))
    return tmp_path


@pytest.fixture(params=["posix_spawn", "subprocess"])
def starter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs with posix_spawn and with the subprocess fallback (as on Windows)."""
    if request.param == "posix_spawn" and not hasattr(os, "posix_spawnp"):
        pytest.skip("no posix_spawn here")
    if request.param == "subprocess":
        monkeypatch.delattr(os, "posix_spawnp", raising=False)
    return request.param


@pytest.mark.skipif(os.name != "posix", reason="the stand-in git is a script with a #! line")
def test_both_pipes_flooded_at_once(fake_git: Path, starter: str) -> None:
    done = Git(["flood"], fake_git).finish()
    assert done.returncode == 0
    assert done.stdout == (b"o" * 1000 + b"\n") * 400
    assert done.stderr == (b"e" * 1000 + b"\n") * 400


@pytest.mark.skipif(os.name != "posix", reason="the stand-in git is a script with a #! line")
def test_exit_code_signal_arguments_and_environment(fake_git: Path, starter: str) -> None:
    failed = Git(["fail"], fake_git).finish()
    assert (failed.returncode, failed.stderr) == (128, b"fatal: no\n")
    assert Git(["signal"], fake_git).finish().returncode == -15
    echoed = Git(["a b", "echo"], fake_git, pathspec_magic=True)
    first = echoed.finish()
    assert echoed.finish() is first  # idempotent
    argv, cwd, env, stdin = first.stdout.decode().split("\n")[:4]
    # Always in the directory given by -C, never with the caller's stdin.
    assert argv.split("\0") == ["--no-optional-locks", "-C", str(fake_git), "a b", "echo"]
    assert (env, stdin) == ("0 1", "")
    assert first.args[:4] == ["git", "--no-optional-locks", "-C", str(fake_git)]
    assert Git(["echo"], fake_git).finish().stdout.decode().split("\n")[2] == "1 1"


def test_no_git_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, starter: str) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GitMissing):
        Git(["version"], tmp_path)


def test_real_git_answers(tmp_path: Path, starter: str) -> None:
    done = Git(["version"], tmp_path).finish()
    assert done.returncode == 0 and done.stdout.startswith(b"git version ")


def test_a_base_check_starts_git_without_the_subprocess_module(tmp_path: Path) -> None:
    """`check --base` in a fresh interpreter: git runs, subprocess is never imported."""
    from gitrepo import commit_all, git_env, init_repo

    init_repo(tmp_path)
    (tmp_path / "citelint.yaml").write_text("sources: []\n")
    commit_all(tmp_path, "base")
    code = ("import sys\nfrom citelint.cli import main\n"
            "code = main(['check', '--base', 'HEAD'])\n"
            "print(code, 'subprocess' in sys.modules)\n")
    env = git_env()
    env.pop("PYTHONPATH", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.stdout.split()[-2:] == ["0", "False"], out.stdout + out.stderr
