"""Read-only proof (DESIGN §1): check, ls, show, context and render to stdout write nothing and open no socket.

CI runs as root, so file permissions prove nothing; an audit hook
(tests/audit.py) records every open for writing and every socket use instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from audit import watching
from conftest import SOURCE_A, SOURCE_B, Repo, run_cli


def snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            st = p.lstat()
            data = p.read_bytes() if p.is_file() and not p.is_symlink() else b""
            out[str(p.relative_to(root))] = (data, st.st_mtime_ns, st.st_mode)
    return out


@pytest.fixture
def busy_repo(repo: Repo) -> Repo:
    """A repository with clean and faulty reports, YAML and JSON, a legacy capture and Markdown."""
    repo.report(repo.cited(), {"state": "unavailable", "label": "sales", "reason": "n/a"})
    repo.report(repo.cited(snippet="not in the capture at all"), name="reports/bad.json")
    repo.write("reports/y.yaml", "facts:\n  - state: unavailable\n    label: inventory\n    reason: none\n")
    repo.write("reports/broken.json", b'{"facts": [NaN]}')
    repo.write("reports/note.md", f"See [the source]({SOURCE_A}) and <https://example.org/invented>.\n")
    import json

    from citelint.store.captures import sha256_hex

    legacy_src = "https://example.org/legacy.txt"
    (repo.root / "captures" / f"{sha256_hex(legacy_src)}.json").write_text(json.dumps(
        {"source": legacy_src, "text": "t", "sha256": sha256_hex("t"), "accessedAt": "2025-01-01T00:00:00Z"}))
    return repo


@pytest.mark.parametrize("argv", [
    ("check",),
    ("check", "--format", "json"),
    ("check", "--format", "github"),
    ("check", "reports/r.json", "reports/y.yaml"),
    ("ls",),
    ("show", SOURCE_A),
    ("context",),
    ("context", "--format", "anthropic", "--source", SOURCE_A),
    ("render", "reports/bad.json"),
    ("render", "reports/note.md", "--format", "md"),
])
def test_inspection_writes_nothing_and_opens_no_socket(busy_repo: Repo, argv: tuple[str, ...],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Lazy imports must not write .pyc files while the hook watches.
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    before = snapshot(busy_repo.root)
    with watching() as events:
        run = run_cli(*argv, cwd=busy_repo.root)
    assert run.code in (0, 1), run.err
    assert events.writes == []
    assert snapshot(busy_repo.root) == before


def test_the_hook_does_see_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The read-only test above could not fail if the hook saw nothing; show that it sees a write."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with watching() as events:
        (tmp_path / "x").write_text("y")
    assert events.writes and events.writes[0][0] == "open"


def test_a_hook_call_with_a_config_of_many_sources_writes_nothing(busy_repo: Repo,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A config's long lists are read by regular expressions, and an error's position by
    loading the config again: no cache is written, valid config or not."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    many = [SOURCE_A, SOURCE_B] + [f"https://example.org/extra/{i:05}" for i in range(5000)]
    for sources, code in ((many, 1), (many + [many[7]], 2)):  # 1: the legacy capture; 2: a duplicate, located
        busy_repo.config(sources=sources)
        before = snapshot(busy_repo.root)
        with watching() as events:
            run = run_cli("check", "--jobs", "1", "reports/r.json", cwd=busy_repo.root)
        assert run.code == code, run.err
        assert code == 1 or run.err.startswith("citelint: config error: citelint.yaml:2:3: sources: [")
        assert events.writes == []
        assert snapshot(busy_repo.root) == before
