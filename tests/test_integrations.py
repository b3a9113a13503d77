"""The integrations for real: pre-commit hooks, the GitHub Action, ``citelint init``.

- pre-commit: a real ``.pre-commit-config.yaml`` whose ``repo:`` is a git
  repository holding a copy of this source tree (``rev:`` its commit), one
  shared ``PRE_COMMIT_HOME`` for the session (the hook environment is built
  once, by pip, from that repository), hooks installed with
  ``pre-commit install`` and run by real ``git commit``.
- The Action: ``action.yml``'s ``run:`` steps executed by bash as the runner
  would (tests/actions_runner.py), from the same copy as the action's
  checkout, against real commits of temporary repositories. The install step
  (a real venv and pip install with constraints.txt) runs once per session;
  later runs reuse its output.

Tests marked ``slow`` build those environments (about 20 s each, once).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from actions_runner import ActionRun, run_composite, workflow_commands
from citelint import __version__
from citelint.store.captures import capture_path, make_record
from citelint.store.writer import write_capture
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, TEXT_A, Repo, run_cli
from gitrepo import commit_all, copy_source_tree, git, git_env, init_repo

SOURCE_C = "https://example.org/c.txt"
TEXT_C = "Third source: 9 items arrived late in the third quarter of the year."


@dataclass(frozen=True)
class Checkout:
    """A git repository holding a copy of this source tree, committed."""

    path: Path
    commit: str


@pytest.fixture(scope="session")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Checkout:
    """This source tree as its own repository: pre-commit's ``repo:`` and the Action's checkout.

    The working tree is copied (not cloned), so uncommitted work is what is tested.
    """
    path = copy_source_tree(tmp_path_factory.mktemp("checkout") / "citelint")
    init_repo(path)
    return Checkout(path, commit_all(path, "citelint source"))


def run_tool(module: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` with this interpreter (the tools the tests depend on)."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=env or git_env(),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


# ====================================================================== static checks

def test_action_yml_validates_against_github_schema() -> None:
    proc = run_tool("check_jsonschema", "--builtin-schema", "vendor.github-actions", "action.yml", cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hook_manifest_is_valid_and_matches_design() -> None:
    proc = run_tool("pre_commit", "validate-manifest", ".pre-commit-hooks.yaml", cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hooks = {h["id"]: h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    # The per-file hook runs in one process: pre-commit already runs its batches in parallel.
    assert hooks["citelint"]["entry"] == "citelint check --jobs 1"
    assert hooks["citelint"]["types_or"] == ["json", "yaml", "markdown", "symlink"] and hooks["citelint"]["types"] == []
    assert hooks["citelint-all"]["pass_filenames"] is False
    import re

    # citelint-all compares the evidence with the commit being made on, on every commit: pre-commit
    # leaves deleted files out of its file list, so no `files:` pattern could see a deleted capture.
    assert hooks["citelint-all"]["always_run"] is True and "files" not in hooks["citelint-all"]
    assert hooks["citelint-all"]["entry"] == "citelint check --base HEAD"
    # The per-file hook leaves evidence to citelint-all with an exclude of its own (no top-level one needed).
    exclude = re.compile(hooks["citelint"]["exclude"])
    assert [p for p in ("captures/ab/cd.json", "docs/captures/x.json", "reviews/r.json", "reports/r.json",
                        "reports/captures.json") if exclude.search(p)] == \
        ["captures/ab/cd.json", "docs/captures/x.json", "reviews/r.json"]


def test_action_passes_inputs_only_through_env() -> None:
    """No ``${{ }}`` inside any script; every input reaches a script via ``env:``."""
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
    scripts = [s for s in action["runs"]["steps"] if "run" in s]
    assert scripts and all("${{" not in s["run"] for s in scripts)
    env_values = " ".join(str(v) for s in scripts for v in s.get("env", {}).values())
    for name in action["inputs"]:
        if name not in ("python-version", "cache"):  # consumed by `uses:` steps' `with:` and `if:`
            assert f"inputs.{name} }}}}" in env_values, name


def test_constraints_pin_every_runtime_dependency() -> None:
    """constraints.txt pins (==) each runtime dependency named in pyproject.toml."""
    import tomllib

    deps = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip().lower().replace("_", "-") for d in deps}
    pins = {}
    for line in (REPO_ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line}"
            pins[name.strip().lower().replace("_", "-")] = version
    assert names <= set(pins), names - set(pins)


def test_constraints_pin_the_lint_extra_and_ci_runs_it() -> None:
    """The `lint` extra is pinned in constraints.txt, and both the lint job and the
    pre-commit hooks run its tools."""
    import tomllib

    extra = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lint"]
    names = {re.split(r"[<>=\[]", d)[0].strip().lower().replace("_", "-") for d in extra}
    pinned = {ln.split("==")[0].strip().lower().replace("_", "-")
              for ln in (REPO_ROOT / "constraints.txt").read_text().splitlines() if "==" in ln.split("#")[0]}
    assert names <= pinned, names - pinned
    job = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "tests.yml").read_text())["jobs"]["lint"]
    runs = [step.get("run", "") for step in job["steps"]]
    assert any("-c constraints.txt" in r and "lint]" in r for r in runs), runs
    assert any(r.startswith("ruff check") for r in runs) and "mypy" in runs, runs
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    assert {h["entry"].split()[0] for h in hooks} >= {"ruff", "mypy"}


# ====================================================================== citelint init

def test_init_creates_starter_files_and_never_overwrites(tmp_path: Path) -> None:
    run = run_cli("init", cwd=tmp_path)
    assert run.code == 0, run.err
    assert run.lines[:2] == ["created: citelint.yaml", "created: captures/.gitattributes"]
    assert (tmp_path / "captures" / ".gitattributes").read_text() == "* -text\n"
    # No release tag exists for init to name: it prints a placeholder the user must fill in.
    assert "rev: REPLACE-WITH-A-CITELINT-TAG-OR-COMMIT" in run.out
    assert "uses: citelint/citelint@REPLACE-WITH-A-CITELINT-TAG-OR-COMMIT" in run.out
    assert f"rev: v{__version__}" not in run.out
    first = (tmp_path / "citelint.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=https://raw.githubusercontent.com/citelint/citelint/main/" \
                    "schemas/config.schema.json"
    assert "captures/** linguist-generated" in run.out

    check = run_cli("check", cwd=tmp_path)  # the starter config is valid and checks nothing yet
    assert (check.code, check.err) == (0, "citelint: no file matched the config's `reports` or `markdown` globs, "
                                          "so nothing was checked\n"), check.out + check.err

    (tmp_path / "citelint.yaml").write_text("sources: [https://example.org/mine.txt]\n")
    again = run_cli("init", cwd=tmp_path)
    assert again.code == 0
    assert again.lines[:2] == ["exists: citelint.yaml (left unchanged)",
                               "exists: captures/.gitattributes (left unchanged)"]
    assert (tmp_path / "citelint.yaml").read_text() == "sources: [https://example.org/mine.txt]\n"


def test_starter_config_stays_valid_with_its_examples_uncommented(tmp_path: Path) -> None:
    """Regression: `sources: []` followed by commented items gave a raw parser error once
    a user uncommented them."""
    assert run_cli("init", cwd=tmp_path).code == 0
    config = tmp_path / "citelint.yaml"
    text = config.read_text()
    uncommented = re.sub(r"^  # ", "  ", text, flags=re.M)
    assert uncommented != text
    config.write_text(uncommented)
    run = run_cli("check", cwd=tmp_path)
    assert run.code == 0, run.err
    from citelint.config import load_config
    loaded = load_config(None, tmp_path)
    assert loaded.sources == ["https://example.org/q3-results.txt"]
    assert "revenue" in loaded.labels and "claim-7" in loaded.labels


@pytest.mark.parametrize("text, words", [
    ("sources: []\n  - https://example.org/a\n",
     "citelint.yaml:2:3: invalid YAML: expected <block end>, but found '<block sequence start>'; the key above "
     "(`sources`) already has a value"),
    ("sources: [https://example.org/a\n", "citelint.yaml:2:1: invalid YAML: expected ',' or ']'"),
    ("sources:\n\t- a\n", "citelint.yaml:2:1: invalid YAML: found character '\\t' that cannot start any token; "
     "YAML does not allow tabs for indentation: indent with spaces"),
    ("sources: {a: 1}\n", "citelint.yaml:1:1: sources must be a list (one `- item` per line), not a mapping"),
])
def test_config_errors_name_the_file_as_the_user_sees_it_with_a_hint(tmp_path: Path, text: str,
                                                                     words: str) -> None:
    (tmp_path / "citelint.yaml").write_text(text)
    sub = tmp_path / "sub"
    sub.mkdir()
    here = run_cli("check", cwd=tmp_path)
    assert here.code == 2 and f"citelint: config error: {words}" in here.err, here.err
    below = run_cli("check", cwd=sub)
    assert below.code == 2 and f"config error: ../{words}" in below.err, below.err
    typed = run_cli("check", "--config", "../citelint.yaml", cwd=sub)
    assert f"config error: ../{words}" in typed.err and str(tmp_path) not in typed.err


def test_config_may_name_its_schema(tmp_path: Path) -> None:
    (tmp_path / "citelint.yaml").write_text("$schema: https://example.org/s.json\nsources:\nlabels:\n")
    run = run_cli("check", cwd=tmp_path)
    assert run.code == 0, run.err


def test_init_respects_pyproject_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.citelint]\nsources = []\n")
    run = run_cli("init", cwd=tmp_path)
    assert run.code == 0
    assert run.lines[0] == "skipped: citelint.yaml ([tool.citelint] in pyproject.toml is the config)"
    assert not (tmp_path / "citelint.yaml").exists()


@pytest.mark.parametrize("config", ["pyproject.toml", "citelint.yaml"])
def test_init_sets_up_the_captures_folder_the_config_names(tmp_path: Path, config: str) -> None:
    """Issue 23: with `captures = "ev"` init created captures/.gitattributes, a folder check never reads."""
    if config == "pyproject.toml":
        (tmp_path / config).write_text('[tool.citelint]\ncaptures = "evidence/ev"\nsources = []\n')
    else:
        (tmp_path / config).write_text("captures: evidence/ev\nsources: []\n")
    run = run_cli("init", cwd=tmp_path)
    assert run.code == 0, run.err
    assert "created: evidence/ev/.gitattributes" in run.lines[:2], run.out
    assert (tmp_path / "evidence" / "ev" / ".gitattributes").read_text() == "* -text\n"
    assert not (tmp_path / "captures").exists()
    assert run_cli("check", cwd=tmp_path).code == 0


def test_init_snippets_are_valid_configs(tmp_path: Path) -> None:
    """The printed snippets validate: pre-commit's own config check, GitHub's workflow schema."""
    from citelint.cli.scaffold import precommit_snippet, workflow_snippet

    (tmp_path / ".pre-commit-config.yaml").write_text(precommit_snippet(__version__))
    proc = run_tool("pre_commit", "validate-config", ".pre-commit-config.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "wf.yml").write_text(workflow_snippet(__version__))
    proc = run_tool("check_jsonschema", "--builtin-schema", "vendor.github-workflows", "wf.yml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ====================================================================== pre-commit

@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit store for the session: the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@dataclass
class HookedRepo:
    """A project repository with citelint's hooks installed by ``pre-commit install``."""

    repo: Repo
    env: dict[str, str]

    def commit(self, message: str) -> subprocess.CompletedProcess[str]:
        git(self.repo.root, "add", "--all", env=self.env)
        # git runs hooks with their stdout sent to its stderr: read both, interleaved.
        return subprocess.run(["git", "commit", "-m", message], cwd=self.repo.root, env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)


def install_hooks(repo: Repo, checkout: Checkout, pre_commit_home: Path, *, first_commit: bool) -> HookedRepo:
    """``repo`` (config, captures, one good report) as a git repository with
    citelint's two hooks installed; with ``first_commit``, all of it committed
    first (without the hooks), else nothing committed yet."""
    env = git_env({"PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never"})
    repo.report(repo.cited(), name="reports/good.json")
    (repo.root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {checkout.path}\n    rev: {checkout.commit}\n"
        "    hooks:\n      - id: citelint\n      - id: citelint-all\n", encoding="utf-8")
    init_repo(repo.root)
    if first_commit:
        commit_all(repo.root, "base")
    proc = run_tool("pre_commit", "install", cwd=repo.root, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return HookedRepo(repo, env)


@pytest.fixture
def hooked(repo: Repo, checkout: Checkout, pre_commit_home: Path) -> HookedRepo:
    """``repo`` as a git repository whose first commit (config, captures, one
    good report) is in, with citelint's two hooks installed."""
    return install_hooks(repo, checkout, pre_commit_home, first_commit=True)


def hook_status(output: str, name: str) -> str:
    """pre-commit's status for hook ``name``: Passed, Failed or '(no files to check)Skipped'."""
    for line in output.splitlines():
        if line.startswith(name + "."):
            return line[len(name):].lstrip(".")
    raise AssertionError(f"hook {name!r} not in output:\n{output}")


def hook_output(output: str, hook_id: str) -> str:
    """What hook ``hook_id`` printed: pre-commit's lines after ``- hook id: ID``
    up to the next hook's status line."""
    lines = output.splitlines()
    start = lines.index(f"- hook id: {hook_id}") + 1
    end = next((i - 1 for i in range(start, len(lines)) if lines[i].startswith("- hook id: ")), len(lines))
    return "\n".join(lines[start:end]) + "\n"


@pytest.mark.slow
def test_precommit_passes_good_and_fails_bad_report(hooked: HookedRepo) -> None:
    repo = hooked.repo
    repo.report(repo.cited("sales", SOURCE_B, "17 items were sold in the second quarter"), name="reports/q2.json")
    ok = hooked.commit("a good report")
    assert ok.returncode == 0, ok.stdout
    assert hook_status(ok.stdout, "citelint") == "Passed"

    bad = repo.report(repo.cited("sales", SOURCE_B, "17 items were sold in the third quarter"),
                      name="reports/q3.json")
    failed = hooked.commit("a bad report")
    assert failed.returncode == 1
    assert hook_status(failed.stdout, "citelint") == "Failed"
    lines = bad.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"snippet"' in text)
    col = lines[line - 1].index('third quarter') + 1  # the first character that differs
    assert f"reports/q3.json:{line}:{col}: CL104 snippet not found" in failed.stdout
    assert "Traceback" not in failed.stdout
    assert git(repo.root, "rev-list", "--count", "HEAD", env=hooked.env) == "2"  # the bad commit was refused


@pytest.mark.slow
def test_precommit_skips_unrelated_files(hooked: HookedRepo) -> None:
    repo = hooked.repo
    repo.write("src/app.py", "print('hello')\n")
    repo.write("notes.txt", "nothing to check\n")
    proc = hooked.commit("unrelated files")
    assert proc.returncode == 0, proc.stdout
    assert hook_status(proc.stdout, "citelint") == "(no files to check)Skipped"
    # citelint-all runs on every commit (pre-commit never names a deleted capture), and passes.
    assert hook_status(proc.stdout, "citelint (all reports)") == "Passed"
    # A JSON file outside the report globs reaches the hook, which checks nothing in it.
    repo.write("data/settings.json", '{"facts": "not a report"}')
    proc = hooked.commit("a data file")
    assert proc.returncode == 0, proc.stdout
    assert hook_status(proc.stdout, "citelint") == "Passed"
    verbose = run_tool("pre_commit", "run", "citelint", "--verbose", "--files", "data/settings.json",
                       cwd=repo.root, env=hooked.env)
    assert "citelint: 0 files, 0 facts" in verbose.stdout, verbose.stdout


@pytest.mark.slow
def test_precommit_checks_a_committed_symlinked_report(hooked: HookedRepo) -> None:
    """Issue 23: pre-commit tags `reports/q9.json -> ../data/q9.txt` "symlink" only, so the hook
    never saw it, and citelint skipped it by its target's name."""
    repo = hooked.repo
    repo.report(repo.cited("sales", SOURCE_B, "17 items were sold in the third quarter"), name="data/q9.txt")
    (repo.root / "reports" / "q9.json").symlink_to(Path("..", "data", "q9.txt"))
    failed = hooked.commit("a symlinked bad report")
    assert failed.returncode == 1, failed.stdout
    assert hook_status(failed.stdout, "citelint") == "Failed"
    assert "reports/q9.json:" in failed.stdout and "CL104 snippet not found" in failed.stdout
    # A folder link too: git commits it as one symlink, and the hook walks it.
    (repo.root / "reports" / "q9.json").unlink()
    (repo.root / "data" / "q9.txt").rename(repo.root / "data" / "q9.json")
    (repo.root / "reports" / "x").symlink_to(Path("..", "data"), target_is_directory=True)
    failed = hooked.commit("a symlinked folder of reports")
    assert failed.returncode == 1, failed.stdout
    assert "reports/x/q9.json:" in failed.stdout and "CL104 snippet not found" in failed.stdout
    assert git(repo.root, "rev-list", "--count", "HEAD", env=hooked.env) == "1"


@pytest.mark.slow
def test_config_or_captures_change_triggers_citelint_all(hooked: HookedRepo) -> None:
    repo = hooked.repo
    # Evidence added (a new capture is no change to a committed one): every report is re-checked, and passes.
    write_capture(repo.root / "captures", make_record(SOURCE_C, TEXT_C, retrieved_at="2026-07-02T00:00:00Z"))
    proc = hooked.commit("a new capture")
    assert proc.returncode == 0, proc.stdout
    assert hook_status(proc.stdout, "citelint (all reports)") == "Passed"
    # The operator withdraws a label: the committed, unchanged report now fails.
    repo.config(labels=["sales"])
    proc = hooked.commit("withdraw the inventory label")
    assert proc.returncode == 1
    assert hook_status(proc.stdout, "citelint (all reports)") == "Failed"
    assert "reports/good.json:5:16: CL003 label 'inventory' is not approved" in proc.stdout, proc.stdout


def printed_precommit_config(init_out: str) -> str:
    """The ``.pre-commit-config.yaml`` snippet as ``citelint init`` prints it (its indented block)."""
    block = init_out.split("Add to .pre-commit-config.yaml:\n\n", 1)[1].split("\n\n", 1)[0]
    return "".join(line[4:] + "\n" for line in block.splitlines())


def test_no_suggested_config_excludes_captures_at_the_top_level(tmp_path: Path) -> None:
    """Neither README nor `init` suggests a top-level `exclude:` (it would
    hide the evidence from every hook)."""
    init = run_cli("init", cwd=tmp_path)
    config = yaml.safe_load(printed_precommit_config(init.out))
    assert "exclude" not in config and [h["id"] for h in config["repos"][0]["hooks"]] == ["citelint", "citelint-all"]
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", readme, re.S)
    assert blocks and all("exclude" not in (yaml.safe_load(b) or {}) for b in blocks)
    assert not re.search(r"^exclude: *\^?captures", readme, re.M)


@pytest.mark.slow
def test_the_printed_precommit_config_blocks_a_commit_of_a_tampered_capture_alone(
        repo: Repo, checkout: Checkout, pre_commit_home: Path) -> None:
    """Issue 23 item 1, as a user hits it: the hooks `citelint init` prints,
    installed by real pre-commit in a real git repository; a committed
    capture's text is edited and committed alone, and the commit is blocked."""
    env = git_env({"PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never"})
    repo.report(repo.cited(), name="reports/good.json")
    printed = printed_precommit_config(run_cli("init", cwd=repo.root).out)
    assert "repo: https://github.com/citelint/citelint" in printed
    config = printed.replace("https://github.com/citelint/citelint", str(checkout.path))
    (repo.root / ".pre-commit-config.yaml").write_text(
        re.sub(r"rev: \S+", f"rev: {checkout.commit}", config), encoding="utf-8")
    init_repo(repo.root)
    commit_all(repo.root, "base")
    proc = run_tool("pre_commit", "install", cwd=repo.root, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hooked = HookedRepo(repo, env)
    capture = capture_path(repo.root / "captures", SOURCE_A, repo.records[SOURCE_A].sha256)
    assert git(repo.root, "ls-files", str(capture.relative_to(repo.root)), env=env)  # committed
    capture.write_bytes(capture.read_bytes().replace(b"42 items", b"52 items"))
    blocked = hooked.commit("edit a committed capture")
    assert blocked.returncode == 1, blocked.stdout
    assert hook_status(blocked.stdout, "citelint") == "(no files to check)Skipped"
    assert hook_status(blocked.stdout, "citelint (all reports)") == "Failed"
    assert " CL103 " in blocked.stdout and "Traceback" not in blocked.stdout
    assert git(repo.root, "rev-list", "--count", "HEAD", env=env) == "1"  # the tampered capture is not in
    assert " CL301 capture was modified since the base revision " in blocked.stdout
    # The old advice, a top-level exclude, once ran no hook at all for the same change; citelint-all
    # now runs on every commit, so even that config blocks it.
    (repo.root / "old.yaml").write_text("exclude: ^captures/\n" + (repo.root / ".pre-commit-config.yaml").read_text())
    old = run_tool("pre_commit", "run", "--config", "old.yaml", "--files", str(capture.relative_to(repo.root)),
                   cwd=repo.root, env=env)
    assert old.returncode == 1 and hook_status(old.stdout, "citelint (all reports)") == "Failed", old.stdout


def committed_capture(hooked: HookedRepo, source: str = SOURCE_A) -> Path:
    """The committed capture of ``source`` in ``hooked``'s repository."""
    capture = capture_path(hooked.repo.root / "captures", source, hooked.repo.records[source].sha256)
    assert git(hooked.repo.root, "ls-files", str(capture.relative_to(hooked.repo.root)), env=hooked.env)
    return capture


@pytest.mark.slow
def test_precommit_blocks_a_committed_captures_retrieved_at_edited_alone(hooked: HookedRepo) -> None:
    """Regression: a capture's `retrievedAt` is not bound by its digest, so an
    edit of it alone passed CL103 and the hooks, and could make an old revision
    the "newest". The hook compares the evidence with HEAD: CL301, blocked."""
    capture = committed_capture(hooked)
    old = capture.read_bytes()
    assert b'"2026-07-01T00:00:00Z"' in old
    capture.write_bytes(old.replace(b'"2026-07-01T00:00:00Z"', b'"2027-01-01T00:00:00Z"'))
    assert hooked.repo.check().code == 0  # without a base, the edited capture is consistent
    blocked = hooked.commit("move a capture's date")
    assert blocked.returncode == 1, blocked.stdout
    assert hook_status(blocked.stdout, "citelint (all reports)") == "Failed"
    rel = capture.relative_to(hooked.repo.root).as_posix()
    assert f"{rel}:1:1: CL301 capture was modified since the base revision " in blocked.stdout, blocked.stdout
    assert "Traceback" not in blocked.stdout
    assert git(hooked.repo.root, "rev-list", "--count", "HEAD", env=hooked.env) == "1"


@pytest.mark.slow
@pytest.mark.parametrize("rm, says", [
    ([], "was deleted since"),
    # The file stays in the working tree, where pre-commit leaves it (it stashes tracked changes only).
    (["--cached"], "was removed from git's index (`git rm --cached`: the next commit deletes it"),
])
def test_precommit_blocks_a_committed_capture_deleted_alone(hooked: HookedRepo, rm: list[str], says: str) -> None:
    """Regression: pre-commit leaves a deleted file out of its file list, so
    `git rm` of a committed capture skipped both hooks and went in."""
    capture = committed_capture(hooked, SOURCE_B)  # not cited: only the append-only rule can see it
    rel = capture.relative_to(hooked.repo.root).as_posix()
    git(hooked.repo.root, "rm", "--quiet", *rm, rel, env=hooked.env)
    # git commit, not HookedRepo.commit: `git add --all` would stage the kept file again.
    blocked = subprocess.run(["git", "commit", "-m", "delete a capture"], cwd=hooked.repo.root, env=hooked.env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    assert blocked.returncode == 1, blocked.stdout
    assert hook_status(blocked.stdout, "citelint") == "(no files to check)Skipped"
    assert hook_status(blocked.stdout, "citelint (all reports)") == "Failed"
    assert f"{rel}:1:1: CL301 capture {says}" in blocked.stdout, blocked.stdout
    assert git(hooked.repo.root, "rev-list", "--count", "HEAD", env=hooked.env) == "1"


@pytest.mark.slow
def test_precommit_blocks_a_deleted_capture_in_a_captures_dir_of_another_name(hooked: HookedRepo) -> None:
    """The config's captures directory, whatever its name, is compared with HEAD."""
    repo = hooked.repo
    (repo.root / "captures").rename(repo.root / "evidence")
    repo.config(captures="evidence")
    commit_all(repo.root, "captures moved to evidence/")
    capture = capture_path(repo.root / "evidence", SOURCE_B, repo.records[SOURCE_B].sha256)
    capture.unlink()
    blocked = hooked.commit("delete a capture from evidence/")
    assert blocked.returncode == 1, blocked.stdout
    assert f"{capture.relative_to(repo.root).as_posix()}:1:1: CL301 capture was deleted" in blocked.stdout


@pytest.mark.slow
def test_precommit_checks_a_commit_that_only_changes_the_allowed_signers_file(
        repo: Repo, checkout: Checkout, pre_commit_home: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Regression: no `files:` pattern named the allowed-signers file, so
    trusting another key went in without a check. The hook runs on every commit."""
    keys = tmp_path_factory.mktemp("keys")
    public = {}
    for name in ("job", "other"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(keys / name)],
                       check=True, capture_output=True)
        public[name] = " ".join((keys / f"{name}.pub").read_text().split()[:2])
    line = 'capture-job@example.org namespaces="citelint" {}\n'
    signers = repo.write(".citelint/allowed_signers", line.format(public["job"]))
    repo.config(evidence={"allowed_signers": ".citelint/allowed_signers", "require_signatures": True})
    attested = run_cli("attest", "--all", "--sign-key", str(keys / "job"), cwd=repo.root)
    assert attested.code == 0, attested.out + attested.err
    hooked = install_hooks(repo, checkout, pre_commit_home, first_commit=True)
    signers.write_text(line.format(public["other"]))
    blocked = hooked.commit("trust another key")
    assert blocked.returncode == 1, blocked.stdout
    assert hook_status(blocked.stdout, "citelint (all reports)") == "Failed"
    assert " CL403 " in blocked.stdout and "Traceback" not in blocked.stdout, blocked.stdout


@pytest.mark.slow
def test_precommit_first_commit_with_captures_passes(repo: Repo, checkout: Checkout, pre_commit_home: Path) -> None:
    """Before the first commit HEAD names nothing: nothing can have been
    modified, and `--base HEAD` is no error."""
    hooked = install_hooks(repo, checkout, pre_commit_home, first_commit=False)
    first = hooked.commit("first commit: config, captures, a report")
    assert first.returncode == 0, first.stdout
    assert hook_status(first.stdout, "citelint (all reports)") == "Passed"
    assert git(repo.root, "rev-list", "--count", "HEAD", env=hooked.env) == "1"


@pytest.mark.slow
def test_precommit_parallel_batches_check_every_file_once(hooked: HookedRepo) -> None:
    """pre-commit splits many files across parallel runs; each file is checked
    exactly once and the one bad report fails the commit."""
    repo = hooked.repo
    labels = [f"m{i:02d}" for i in range(40)]
    repo.config(labels=labels)
    commit_all(repo.root, "labels")
    for i, label in enumerate(labels[:39]):
        repo.report(repo.cited(label, snippet="Synthetic source: 42 items"), name=f"reports/batch/r{i:02d}.json")
    repo.report(repo.cited(labels[39], snippet="Synthetic source: 41 items"), name="reports/batch/zz-bad.json")
    repo.write("reports/batch/notes.md", "No links here.\n")
    proc = hooked.commit("forty reports")
    assert proc.returncode == 1
    summaries = [ln for ln in hook_output(proc.stdout, "citelint").splitlines() if ln.startswith("citelint: ")]
    checked = sum(int(ln.split()[1]) for ln in summaries)
    assert checked == 41, summaries
    assert hook_output(proc.stdout, "citelint").count(": CL104 ") == 1
    if (os.cpu_count() or 1) > 1 and "PRE_COMMIT_NO_CONCURRENCY" not in os.environ:
        assert len(summaries) >= 2, "expected pre-commit to split the files into parallel batches"


# ====================================================================== the Action

@dataclass
class ActionKit:
    """What every Action run shares: the action's checkout, a runner temp
    directory, and the install step's outputs after its one real run."""

    action_dir: Path
    runner_temp: Path
    install_outputs: dict[str, str]
    first_run: ActionRun


def workspace_repo(root: Path, *, policy: bool = False) -> Repo:
    """A repository on ``main``: config, captures of A and B, one good report; committed."""
    root.mkdir(parents=True, exist_ok=True)
    r = Repo(root)
    r.config(sources=[SOURCE_A, SOURCE_B, SOURCE_C], labels=["inventory", "sales", "late"],
             require_captures_on_base=policy)
    r.capture(SOURCE_A, TEXT_A)
    r.capture(SOURCE_B, "Another source: 17 items were sold in the second quarter.")
    r.report(r.cited(snippet="Synthetic source: 42 items"), name="reports/good.json")
    init_repo(root)
    commit_all(root, "base")
    return r


def base_env() -> dict[str, str]:
    """The runner's environment: the test's own, less anything GitHub- or git-specific."""
    env = git_env()
    for key in list(env):
        if key.startswith(("GITHUB_", "RUNNER_", "INPUT_")):
            del env[key]
    return env


@pytest.fixture(scope="session")
def action_kit(checkout: Checkout, tmp_path_factory: pytest.TempPathFactory) -> ActionKit:
    """Run the whole action once, install step included, on a clean push that
    created its branch (so the diff-aware rules are skipped with a notice)."""
    runner_temp = tmp_path_factory.mktemp("runner-temp")
    ws = tmp_path_factory.mktemp("ws-first") / "repo"
    workspace_repo(ws)
    run = run_composite(checkout.path, ws, runner_temp=runner_temp, inputs={}, event_name="push",
                        event={"before": "0" * 40, "after": git(ws, "rev-parse", "HEAD")},
                        uses_outputs={"python": {"python-path": sys.executable}}, base_env=base_env())
    install = run.step("install")
    assert install.status == 0, install.log
    return ActionKit(checkout.path, runner_temp, install.outputs, run)


def run_action(kit: ActionKit, ws: Path, *, event_name: str, event: dict, **inputs: str) -> ActionRun:
    return run_composite(kit.action_dir, ws, runner_temp=kit.runner_temp, inputs=inputs, event_name=event_name,
                         event=event, skip_steps={"install": kit.install_outputs}, base_env=base_env())


@pytest.mark.slow
def test_action_installs_pinned_and_skips_diff_rules_without_base(action_kit: ActionKit) -> None:
    run = action_kit.first_run
    install = run.step("install")
    assert f"citelint {__version__}" in install.log
    venv_python = Path(install.outputs["bin"]) / "python"
    frozen = subprocess.run([str(venv_python), "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    pins = [ln for ln in (action_kit.action_dir / "constraints.txt").read_text().splitlines()
            if ln and not ln.startswith("#")]
    installed = {ln.lower().replace("_", "-") for ln in frozen.splitlines() if "==" in ln}
    pinned = {p.lower().replace("_", "-") for p in pins}
    # Every package installed is installed exactly as pinned; a pin may go unused on an
    # interpreter that needs no backport (typing-extensions on Python 3.13).
    assert installed <= pinned, (sorted(installed - pinned), frozen)
    names = {ln.split("==")[0] for ln in installed}
    assert {"pyyaml", "jsonschema", "urllib3", "cmarkgfm", "ada-url", "cryptography"} <= names, frozen

    check = run.step("check")
    assert check.status == 0, check.log
    assert [c.line for c in workflow_commands(check.log)][0] == (
        "::notice title=citelint::No base revision (not a pull request, or a push that created the branch): "
        "the diff-aware rules CL301 and CL302 are skipped.")
    assert run.outputs == {"findings": "0", "errors": "0", "warnings": "0", "semantic-review": "1",
                           "exit-code": "0", "shard-file": ""}
    assert "## citelint" in run.summary and "No findings." in run.summary
    assert "<summary>Semantic review: 1 unreviewed citation to read" in run.summary


@pytest.mark.slow
def test_action_pull_request_capture_with_claim_is_cl302(action_kit: ActionKit, tmp_path: Path) -> None:
    ws = tmp_path / "repo"
    r = workspace_repo(ws, policy=True)
    base = git(ws, "rev-parse", "HEAD")
    git(ws, "switch", "--quiet", "--create", "feature")
    r.capture(SOURCE_C, TEXT_C)
    report = r.report(r.cited("late", SOURCE_C, "9 items arrived late in the third quarter"),
                      r.cited("sales", SOURCE_B, "17 items"), name="reports/pr.json")
    commit_all(ws, "capture C and a report leaning on it")
    run = run_action(action_kit, ws, event_name="pull_request",
                     event={"pull_request": {"base": {"sha": base}, "head": {"sha": git(ws, "rev-parse", "HEAD")}}},
                     **{"sarif-file": "citelint.sarif"})
    check = run.step("check")
    assert check.status == 1, check.log
    # The fact leaning on the capture that is not on the base (CL302) is not accepted, so not reviewed.
    assert run.outputs == {"findings": "2", "errors": "1", "warnings": "1", "semantic-review": "2",
                           "exit-code": "1", "shard-file": ""}
    commands = workflow_commands(check.log)
    sha = r.records[SOURCE_C].sha256
    lines = report.read_text().splitlines()
    n = next(i for i, text in enumerate(lines, 1) if sha in text)
    col = lines[n - 1].index(f'"{sha}"') + 1
    short = base[:12]
    short_line = next(i for i, text in enumerate(lines, 1) if text.endswith('"snippet": "17 items"'))
    assert [c.line for c in commands[:3]] == [
        f"::error file=reports/pr.json,line={n},col={col},endColumn={col + 66},title=citelint (CL302)::capture "
        f"{sha[:12]}… is not on the base revision {short} (require_captures_on_base); merge the capture in its own "
        "change first, then the report [capture-not-on-base]",
        f"::warning file=reports/pr.json,line={short_line},col=18,endColumn=28,title=citelint (CL105)::"
        "snippet is only 8 characters (fewer than 20); quote enough to identify the passage [snippet-ambiguous]",
        "::notice title=citelint (CL901)::2 accepted citation(s) need semantic review (listed in the step summary)",
    ]
    assert [c.name for c in commands[3:4]] == ["stop-commands"] and len(commands) == 5
    assert "#### reports/pr\\.json (2)\n\n- **error** [CL302](" in run.summary
    assert "\n- **warning** [CL105](" in run.summary
    # With a base, the review list holds only what the change added (the base's report is reviewed there).
    assert "<summary>Semantic review: 1 unreviewed citation to read" in run.summary
    assert "(1 more unreviewed citation was already on the base: this list holds only those the change added)" \
        in run.summary
    assert "`citelint review --approve " in run.summary
    sarif = json.loads((ws / "citelint.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]][:2] == ["CL302", "CL105"]

    # The same capture merged first: the report alone is clean.
    git(ws, "switch", "--quiet", "main")
    git(ws, "merge", "--quiet", "--ff-only", "feature")
    git(ws, "switch", "--quiet", "--create", "next")
    r.report(r.cited("late", SOURCE_C, "9 items arrived late in the third quarter"), name="reports/next.json")
    commit_all(ws, "report on merged evidence")
    merged = git(ws, "rev-parse", "main")
    run = run_action(action_kit, ws, event_name="pull_request", event={"pull_request": {"base": {"sha": merged}}},
                     paths="reports/next.json\n")
    assert run.step("check").status == 0, run.step("check").log
    assert run.outputs["errors"] == "0"


@pytest.mark.slow
def test_action_matrix_of_shards_and_a_merge_job_report_as_one_check(action_kit: ActionKit, tmp_path: Path) -> None:
    """The documented matrix (docs/shards.md): three shard jobs write their files, which the
    merge job finds in one folder (as actions/download-artifact leaves them) and reports as one run."""
    ws = tmp_path / "repo"
    r = workspace_repo(ws)
    base = git(ws, "rev-parse", "HEAD")
    git(ws, "switch", "--quiet", "--create", "feature")
    r.capture(SOURCE_C, TEXT_C)
    r.report(r.cited("late", SOURCE_C, "9 items arrived late in the third quarter"),
             r.cited("sales", SOURCE_B, "17 items"), r.cited("inventory", SOURCE_A, "43 items"), name="reports/pr.json")
    r.write("reports/answer.md", f"It is [here]({SOURCE_A}) and [not here](https://invented.example/x).\n")
    r.config(sources=[SOURCE_A, SOURCE_B, SOURCE_C], labels=["inventory", "sales", "late"],
             markdown=["reports/**/*.md"])
    commit_all(ws, "a change")
    event = {"pull_request": {"base": {"sha": base}, "head": {"sha": git(ws, "rev-parse", "HEAD")}}}
    whole = run_action(action_kit, ws, event_name="pull_request", event=event, strict="true")
    assert whole.step("check").status == 1, whole.step("check").log
    artifacts = tmp_path / "artifacts"
    for k in (1, 2, 3):
        (artifacts / f"shard-{k}").mkdir(parents=True)
        job = run_action(action_kit, ws, event_name="pull_request", event=event, shard=f"{k}/3", strict="true",
                         **{"shard-file": str(artifacts / f"shard-{k}" / "citelint-shard.json")})
        assert job.step("check").status == 0, job.step("check").log
        assert job.outputs["shard-file"] == str(artifacts / f"shard-{k}" / "citelint-shard.json")
        assert job.summary == "" and workflow_commands(job.step("check").log) == []
    downloaded = tmp_path / "downloaded"
    downloaded.mkdir()
    for k in (1, 2, 3):
        shutil.copy(artifacts / f"shard-{k}" / "citelint-shard.json", downloaded / f"shard-{k}.json")
    merged = run_action(action_kit, ws, event_name="pull_request", event=event, merge=str(downloaded), strict="true")
    assert merged.step("check").status == 1, merged.step("check").log
    assert merged.outputs == whole.outputs
    assert merged.summary == whole.summary

    def annotations(run: ActionRun) -> list[str]:
        # The stop-commands token is random in every run; everything else must be equal.
        return [c.line for c in workflow_commands(run.step("check").log)
                if c.name != "stop-commands" and not re.fullmatch(r"::[0-9a-f]+::", c.line)]

    assert annotations(merged) == annotations(whole) and any("CL201" in a for a in annotations(whole))
    empty = tmp_path / "empty"
    empty.mkdir()
    none = run_action(action_kit, ws, event_name="pull_request", event=event, merge=str(empty))
    assert none.outputs["exit-code"] == "2" and "no shard file" in none.step("check").log
    both = run_action(action_kit, ws, event_name="pull_request", event=event, merge=str(empty), shard="1/2")
    assert both.outputs["exit-code"] == "2"


@pytest.mark.slow
def test_action_push_on_shallow_clone_fetches_base_and_finds_cl301(action_kit: ActionKit, tmp_path: Path) -> None:
    """actions/checkout's default: depth 1. The push's previous commit is fetched,
    then compared (no merge base in a shallow clone: its own tree)."""
    origin = tmp_path / "origin"
    r = workspace_repo(origin)
    before = git(origin, "rev-parse", "HEAD")
    path = next((origin / "captures").rglob("*.json"))
    path.write_bytes(path.read_bytes().replace(b"42 items", b"44 items"))
    after = commit_all(origin, "edit evidence")
    ws = tmp_path / "ws"
    git(tmp_path, "clone", "--quiet", "--depth=1", f"file://{origin}", str(ws))
    assert git(ws, "cat-file", "-t", before, check=False) == ""
    run = run_action(action_kit, ws, event_name="push", event={"before": before, "after": after})
    check = run.step("check")
    assert check.status == 1, check.log
    assert "the base commit is not in this clone; fetching it (depth 1)" in check.log
    rel = path.relative_to(origin).as_posix()
    commands = workflow_commands(check.log)
    names = [(c.name, c.line.split("title=citelint (")[1][:5] if "title=citelint (" in c.line else "")
             for c in commands]
    # The edited capture is also the one reports/good.json cites: its digest no longer matches (CL103).
    # The comparison with the base's own tree is a notice.
    assert names == [("error", "CL301"), ("error", "CL103"), ("notice", ""), ("stop-commands", ""),
                     (commands[-1].name, "")]
    assert f"::error file={rel},line=1,col=1,title=citelint (CL301)::capture was modified since the base " \
           f"revision {before[:12]}" in check.log
    assert run.outputs["exit-code"] == "1" and run.outputs["errors"] == "2"
    assert f"--base: compared captures with {before}'s own tree" in check.log
    assert r.records[SOURCE_A].sha256 in path.name


@pytest.mark.slow
def test_action_strict_paths_and_injection(action_kit: ActionKit, tmp_path: Path) -> None:
    """Inputs: ``paths`` (one per line) limits the check, ``strict`` fails on a
    warning; untrusted report text issues no workflow command through the Action."""
    ws = tmp_path / "repo"
    r = workspace_repo(ws)
    payload = "x\n::error::pwned\n::add-mask::%0Asecret\n##[set-output name=x;]y\n::stop-commands::abc"
    r.report(r.cited("sales", SOURCE_B, "17 items"), name="reports/warn.json")
    r.report({"state": "unavailable", "label": payload, "reason": payload}, name="reports/evil.json")
    commit_all(ws, "reports")
    event = {"before": "0" * 40}
    lenient = run_action(action_kit, ws, event_name="push", event=event, paths="reports/warn.json\n\n")
    assert (lenient.step("check").status, lenient.outputs["warnings"], lenient.outputs["errors"]) == (0, "1", "0")
    strict = run_action(action_kit, ws, event_name="push", event=event, paths="  reports/warn.json  ",
                        strict="true")
    assert (strict.step("check").status, strict.outputs["exit-code"]) == (1, "1")
    bad_input = run_action(action_kit, ws, event_name="push", event=event, strict="yes please")
    assert bad_input.step("check").status == 2
    assert "::error title=citelint::the strict input must be true or false" in bad_input.step("check").log

    evil = run_action(action_kit, ws, event_name="push", event=event)
    commands = workflow_commands(evil.step("check").log)
    token = commands[-1].name
    assert [c.name for c in commands] == ["notice", "error", "warning", "notice", "stop-commands", token]
    assert commands[1].line.startswith("::error file=reports/evil.json,line=5,col=16,endColumn=105,"
                                       "title=citelint (CL003)::label 'x\\n::error::pwned\\n::add-mask::%250Asecret")
    assert "pwned" in evil.step("check").log  # shown, but only as data
    assert evil.outputs["errors"] == "1"


@pytest.mark.slow
def test_action_sarif_file_never_writes_through_a_committed_symlink_or_over_evidence(
        action_kit: ActionKit, tmp_path: Path) -> None:
    """The `sarif-file` input names a path in a checkout a pull request controls
    (compare bug-ops/deps-lsp#1132): a committed symlink there, to a file out of
    the repository or through a symlinked folder, or a capture, is refused by
    citelint's writer (exit 2, an error annotation) and is left byte for byte
    as it was; the action neither removes nor writes it itself."""
    ws = tmp_path / "repo"
    r = workspace_repo(ws)
    victim = tmp_path / "victim.txt"
    victim.write_text("outside the repository\n")
    (ws / "citelint.sarif").symlink_to(victim)
    (ws / "out").symlink_to(tmp_path, target_is_directory=True)
    commit_all(ws, "symlinks")
    capture = capture_path(ws / "captures", SOURCE_A, r.records[SOURCE_A].sha256)
    before = {p: (os.readlink(p) if p.is_symlink() else None, p.read_bytes() if p.is_file() else None)
              for p in (ws / "citelint.sarif", victim, capture)}
    event = {"before": "0" * 40}
    for target, why in (("citelint.sarif", "it is a symlink"), ("out/x.sarif", "is a symlink inside the project"),
                        (capture.relative_to(ws).as_posix(), "it is evidence")):
        run = run_action(action_kit, ws, event_name="push", event=event, **{"sarif-file": target})
        check = run.step("check")
        assert check.status == 2 and run.outputs["exit-code"] == "2", check.log
        errors = [c.line for c in workflow_commands(check.log) if c.name == "error"]
        assert errors and f"cannot write --sarif-file {ws / target}" in errors[0] and why in errors[0], check.log
        assert run.outputs["findings"] == ""  # nothing stale was counted
        assert {p: (os.readlink(p) if p.is_symlink() else None, p.read_bytes() if p.is_file() else None)
                for p in before} == before
        assert not (tmp_path / "x.sarif").exists()
    ok = run_action(action_kit, ws, event_name="push", event=event, **{"sarif-file": "results.sarif"})
    assert ok.step("check").status == 0 and ok.outputs["errors"] == "0"
    assert json.loads((ws / "results.sarif").read_text())["version"] == "2.1.0"


@pytest.mark.slow
def test_action_unfetchable_base_is_a_notice_unless_the_policy_needs_it(action_kit: ActionKit,
                                                                         tmp_path: Path) -> None:
    """A base commit the clone lacks and cannot fetch (fetch-base off here; a force-push or
    a fork in real life) skips the diff-aware rules with a notice, never a failed job with a
    hint to use the action that is running; with require_captures_on_base it stays an error
    that says how to get the commit, and every output is still set."""
    ws = tmp_path / "repo"
    workspace_repo(ws)
    event = {"pull_request": {"base": {"sha": "1" * 40}}}
    run = run_action(action_kit, ws, event_name="pull_request", event=event, **{"fetch-base": "false"})
    check = run.step("check")
    assert check.status == 0, check.log
    [notice] = [c.line for c in workflow_commands(check.log) if c.name == "notice" and "CL301" in c.line]
    assert "is not in this clone" in notice and "the diff-aware rule CL301 is skipped" in notice
    assert "the citelint action, which fetches it" not in check.log
    assert run.outputs["exit-code"] == "0" and run.outputs["errors"] == "0"

    strict_ws = tmp_path / "strict"
    workspace_repo(strict_ws, policy=True)
    run = run_action(action_kit, strict_ws, event_name="pull_request", event=event, **{"fetch-base": "false"})
    check = run.step("check")
    assert check.status == 2
    assert "is not in this clone; fetch it first" in check.log and "fetch-depth: 0" in check.log
    assert run.outputs == {"findings": "", "errors": "", "warnings": "", "semantic-review": "", "exit-code": "2",
                           "shard-file": ""}


@pytest.mark.slow
def test_action_working_directory_and_args(action_kit: ActionKit, tmp_path: Path) -> None:
    """A project in a subdirectory: citelint runs there, annotations and SARIF name files
    from the repository root; `args` lines reach `citelint check` as they are."""
    ws = tmp_path / "repo"
    ws.mkdir()
    project = ws / "docs" / "evidence"
    r = Repo(project)
    project.mkdir(parents=True)
    r.config(sources=[SOURCE_A], labels=["inventory"])
    r.capture(SOURCE_A, TEXT_A)
    r.report(r.cited(snippet="Synthetic source: 43 items"), name="reports/bad.json")
    init_repo(ws)
    commit_all(ws, "project in a subdirectory")
    run = run_action(action_kit, ws, event_name="push", event={"before": "0" * 40},
                     **{"working-directory": "docs/evidence", "args": "--quiet\n", "sarif-file": "out.sarif"})
    check = run.step("check")
    assert check.status == 1, check.log
    [error] = [c.line for c in workflow_commands(check.log) if c.name == "error"]
    assert error.startswith("::error file=docs/evidence/reports/bad.json,line=")
    sarif = json.loads((ws / "out.sarif").read_text(encoding="utf-8"))
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "docs/evidence/reports/bad.json"
    # --quiet from `args`: the semantic-review notice is not printed.
    assert "CL901" not in check.log
    missing = run_action(action_kit, ws, event_name="push", event={"before": "0" * 40},
                         **{"working-directory": "no/such/dir"})
    assert missing.step("check").status == 2 and missing.outputs["exit-code"] == "2"
    assert "working-directory no/such/dir does not exist" in missing.step("check").log


@pytest.mark.slow
def test_action_reuses_its_cached_environment(action_kit: ActionKit, tmp_path: Path) -> None:
    """The install step keeps its environment under a key of the action's files and the
    Python: run again with the same key (as after actions/cache restored it), it installs
    nothing; with another key it builds a fresh one."""
    ws = tmp_path / "repo"
    workspace_repo(ws)
    run = run_composite(action_kit.action_dir, ws, runner_temp=action_kit.runner_temp, inputs={},
                        event_name="push", event={"before": "0" * 40},
                        uses_outputs={"python": {"python-path": sys.executable}}, base_env=base_env())
    install = run.step("install")
    assert install.status == 0 and "using the cached environment" in install.log, install.log
    assert run.step("key").outputs["key"].startswith("citelint-venv-")
    assert run.step("check").status == 0


# ====================================================================== this repository dogfoods both

@pytest.mark.parametrize("name", ["citelint.yml", "tests.yml"])
def test_repository_workflow_is_valid(name: str) -> None:
    workflow = REPO_ROOT / ".github" / "workflows" / name
    proc = run_tool("check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow), cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_tests_workflow_covers_every_classified_python() -> None:
    """pyproject.toml's version classifiers and the test matrix name the same versions,
    starting at requires-python."""
    import tomllib

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    classified = [c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
                  if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    matrix = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "tests.yml").read_text())
    assert matrix["jobs"]["pytest"]["strategy"]["matrix"]["python"] == classified
    assert project["requires-python"] == f">={classified[0]}"


@pytest.mark.slow
def test_repository_checks_its_clean_example_with_its_own_action(action_kit: ActionKit, checkout: Checkout) -> None:
    """The workflow's `uses: ./` step, with its own inputs, on this source tree."""
    workflow = yaml.safe_load((checkout.path / ".github" / "workflows" / "citelint.yml").read_text())
    [step] = [s for s in workflow["jobs"]["example"]["steps"] if s.get("uses") == "./"]
    run = run_action(action_kit, checkout.path, event_name="pull_request",
                     event={"pull_request": {"base": {"sha": checkout.commit}}}, **step["with"])
    assert run.step("check").status == 0, run.step("check").log
    assert run.outputs["errors"] == "0" and int(run.outputs["semantic-review"]) > 0


def test_repository_precommit_config_checks_its_clean_example(checkout: Checkout, pre_commit_home: Path) -> None:
    """`.pre-commit-config.yaml` runs the development citelint on examples/expertqa.

    Only that hook: the ruff and mypy hooks need the `lint` extra, which the
    test environment does not install (the lint job runs them)."""
    env = git_env({"PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never",
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"})
    proc = run_tool("pre_commit", "run", "citelint-example", "--all-files", cwd=checkout.path, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert hook_status(proc.stdout, "citelint (examples/expertqa)") == "Passed"
