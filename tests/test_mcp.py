"""``citelint mcp`` end to end through the official SDK's own client over stdio: the tools
it lists (all read-only), a draft checked, a quote found or its nearest passage given,
the sources listed, only committed captures answering, and nothing written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from citelint.store.captures import sha256_hex
from conftest import REPO_ROOT, run_cli
from gitrepo import commit_all, init_repo

SOURCE = "https://example.org/q3.txt"
OTHER = "https://example.org/q2.txt"
TEXT = "Revenue rose 12% to $4.1 million\nin the third quarter, the company said."
GOOD = f"Revenue [rose 12% to $4.1 million]({SOURCE}#:~:text=Revenue%20rose%2012%25%20to%20%244.1%20million)."


def record(root: Path, source: str, text: str) -> None:
    (root / "body.txt").write_text(text, encoding="utf-8")
    run = run_cli("capture", "--source", source, "--from-file", "body.txt", "--retrieved-at",
                  "2026-12-01T10:00:00Z", cwd=root)
    assert run.code == 0, run.err
    (root / "body.txt").unlink()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    init_repo(root)
    config = {"sources": [SOURCE, OTHER], "labels": ["revenue"], "markdown": ["*.md"]}
    (root / "citelint.yaml").write_text(json.dumps(config), encoding="utf-8")
    record(root, SOURCE, TEXT)
    commit_all(root, "captures")
    record(root, OTHER, "Revenue fell in the second quarter.")  # on disk, never committed
    return root


def server(root: Path) -> StdioServerParameters:
    """``citelint mcp`` in ``root``, as the SDK's stdio client starts a server."""
    env = {"PYTHONPATH": str(REPO_ROOT), "NO_COLOR": "1", "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable, args=["-m", "citelint", "mcp"], cwd=root, env=env)


def session(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    """Start ``citelint mcp`` in ``root``, list its tools and make ``calls``; returns (tools, results)."""

    async def main() -> tuple[list[Any], list[Any]]:
        async with Client(server(root)) as client:
            tools = (await client.list_tools()).tools
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return tools, results

    return anyio.run(main)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".git" not in p.parts}


def test_tools_answer_from_committed_captures_and_write_nothing(project: Path) -> None:
    before = files(project)
    tools, results = session(project, [
        ("list_sources", {}),
        ("find_quote", {"source": SOURCE, "text": "$4.1 million in the third quarter"}),
        ("find_quote", {"source": SOURCE, "text": "$4.2 million in the third quarter"}),
        ("find_quote", {"source": OTHER, "text": "Revenue fell"}),
        ("find_quote", {"source": "https://example.org/invented", "text": "anything"}),
        ("check_markdown", {"markdown": GOOD}),
        ("check_markdown", {"markdown": GOOD.replace("12%", "15%"), "name": "draft.md"}),
        ("check_report", {"report": {"facts": [{"state": "cited", "label": "revenue", "source": SOURCE,
                                                "captureSha256": sha256_hex(TEXT), "snippet": "Revenue rose 12%"}]}}),
    ])
    assert sorted(t.name for t in tools) == ["check_markdown", "check_report", "find_quote", "list_sources"]
    for tool in tools:
        assert tool.annotations.read_only_hint and not tool.annotations.open_world_hint
        assert not tool.annotations.destructive_hint and tool.description
    listed, found, missed, uncommitted, unapproved, clean, misquoted, report = (r.structured_content for r in results)
    assert listed["sources"][0]["source"] == SOURCE
    assert [r["revision"] for r in listed["sources"][0]["revisions"]] == [sha256_hex(TEXT)]
    assert listed["sources"][1] == {"source": OTHER, "revisions": []}  # only committed captures count
    # Across the line break: whitespace runs are equal, as for a prose quotation.
    assert found["found"] and found["revisions"][0]["occurrences"][0]["line"] == 1
    assert found["revisions"][0]["occurrences"][0]["column"] == len("Revenue rose 12% to ") + 1
    assert not missed["found"] and "$4.1 million" in missed["revisions"][0]["nearest"]
    assert uncommitted["found"] is False and "neither committed nor staged" in uncommitted["notCommitted"][0]["why"]
    assert results[4].is_error and "not an approved source" in results[4].content[0].text
    assert unapproved is None
    assert clean["findings"] == [] and clean["counts"]["links"] == 1, clean["findings"]
    assert [f["rule"] for f in misquoted["findings"]] == ["CL204"] and misquoted["findings"][0]["path"] == "draft.md"
    assert report["counts"]["errors"] == 0 and report["accepted"][0]["snippet"] == "Revenue rose 12%"
    # The same check as the CLI's: its JSON, byte for byte in content.
    (project / "draft.md").write_text(GOOD.replace("12%", "15%"), encoding="utf-8")
    cli = json.loads(run_cli("check", "draft.md", "--format", "json", cwd=project).out)
    (project / "draft.md").unlink()
    assert misquoted["findings"] == cli["findings"]
    assert files(project) == before


def test_a_capture_committed_while_the_server_runs_counts_from_then_on(project: Path) -> None:
    from gitrepo import git

    async def main() -> tuple[Any, Any]:
        async with Client(server(project)) as client:
            before = await client.call_tool("find_quote", {"source": OTHER, "text": "Revenue fell"})
            git(project, "add", "captures")
            after = await client.call_tool("find_quote", {"source": OTHER, "text": "Revenue fell"})
            return before.structured_content, after.structured_content

    before, after = anyio.run(main)
    assert before["found"] is False and after["found"] is True


def test_a_broken_config_is_exit_2_before_any_protocol(tmp_path: Path) -> None:
    (tmp_path / "citelint.yaml").write_text("sources: 3\n", encoding="utf-8")
    run = run_cli("mcp", cwd=tmp_path)
    assert (run.code, run.out) == (2, "") and "config error" in run.err


def test_every_tool_call_writes_nothing_and_opens_no_connection(project: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The server in this process, through the SDK's in-memory client, watched by the audit
    hook: no file opened for writing, no socket connected, bound or resolved."""
    from audit import watching
    from citelint import Project
    from citelint.integrations.mcp import build_server

    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # lazy imports must not write .pyc files
    server_ = build_server(Project.open(project))
    calls = [("list_sources", {}), ("find_quote", {"source": SOURCE, "text": "third quarter"}),
             ("check_markdown", {"markdown": GOOD + " [x](https://example.org/invented)"}),
             ("check_report", {"report": '{"facts": []}'})]

    async def main() -> list[Any]:
        async with Client(server_) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    anyio.run(main)  # the first session loads what the tools import
    with watching() as events:
        results = anyio.run(main)
    assert [r.is_error for r in results] == [False] * 4
    assert results[2].structured_content["counts"]["errors"] == 1  # the invented link, found and not removed
    assert events.writes == []


def test_without_the_mcp_extra_the_command_says_how_to_install_it(project: Path) -> None:
    import subprocess

    # The SDK made unimportable, as in an install without the extra.
    code = "import sys\nsys.modules['mcp'] = None\nfrom citelint.cli import main\nsys.exit(main(['mcp']))\n"
    run = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)))
    assert (run.returncode, run.stdout) == (2, "")
    assert "pip install 'citelint-provenance[mcp]'" in run.stderr and "Traceback" not in run.stderr


def test_find_quote_refuses_a_revision_that_is_no_digest_or_names_none(project: Path) -> None:
    """`"revision": "zzzz"` or one no committed capture has answered "not found", and an agent
    concluded the quote was absent: both are errors that say what to give."""
    _, results = session(project, [
        ("find_quote", {"source": SOURCE, "text": "$4.1 million in the third quarter", "revision": "../../etc"}),
        ("find_quote", {"source": SOURCE, "text": "$4.1 million in the third quarter", "revision": "b"}),
        ("find_quote", {"source": SOURCE, "text": "$4.1 million in the third quarter", "revision": "ffff0000"}),
        ("find_quote", {"source": SOURCE, "text": "$4.1 million in the third quarter",
                        "revision": sha256_hex(TEXT)[:8].upper()}),
    ])
    assert all(r.is_error for r in results[:3])
    assert "no capture digest" in results[0].content[0].text and "no capture digest" in results[1].content[0].text
    assert "names no committed, verified revision" in results[2].content[0].text
    assert not results[3].is_error and results[3].structured_content["found"]
