"""Real git repositories for the diff-aware and integration tests.

Every git command runs with a hermetic environment (no global or system
config, fixed author), so the tests behave the same on a developer's machine
and in CI, and never touch the repository they are run from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Files of a checkout that are not part of the source tree.
_NOT_SOURCE = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".pytest_cache", "*.egg-info", "build",
                                     "dist", ".venv", ".work", ".mypy_cache", ".ruff_cache")


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The process environment with git made hermetic: no user or system
    config, a fixed identity, no prompts, no pager."""
    env = dict(os.environ)
    for key in list(env):
        # A surrounding hook run (pre-commit, git itself) may point git elsewhere.
        if key.startswith("GIT_") and key not in ("GIT_EXEC_PATH",):
            del env[key]
    env.update({
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "citelint tests",
        "GIT_AUTHOR_EMAIL": "tests@citelint.invalid",
        "GIT_COMMITTER_NAME": "citelint tests",
        "GIT_COMMITTER_EMAIL": "tests@citelint.invalid",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
    })
    env.update(extra or {})
    return env


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    """Run ``git args`` in ``cwd``; return stdout (stripped).

    Raises:
        AssertionError: the command failed and ``check`` is set (stderr included).
    """
    proc = subprocess.run(["git", *args], cwd=cwd, env=env or git_env(), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout.strip()


def init_repo(root: Path) -> None:
    """``git init`` with branch ``main`` (file protocol allowed for local clones)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    # Tests clone and fetch from sibling directories by file:// URL.
    git(root, "config", "protocol.file.allow", "always")
    git(root, "config", "uploadpack.allowReachableSHA1InWant", "true")


def commit_all(root: Path, message: str) -> str:
    """Stage everything (deletions too) and commit; return the new commit id."""
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD")


def copy_source_tree(dest: Path) -> Path:
    """Copy this checkout's working tree (not its .git, caches or build output)
    to ``dest``: what a clone of the current state would contain."""
    shutil.copytree(REPO_ROOT, dest, ignore=_NOT_SOURCE, symlinks=True)
    return dest
