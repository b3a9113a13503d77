"""The MCP server ``citelint mcp`` (the official ``mcp`` SDK over stdio; extra ``mcp``):
tools a drafting agent calls to verify what it writes against the committed captures.

Every tool is read-only and offline (annotated so): it reads the project's config and
captures, never writes a file, never fetches. Nothing an agent sends can become evidence:
captures are added by the trusted stage alone (``citelint capture``).

- ``check_markdown(markdown, name)``: the check of a Markdown draft, as ``citelint check
  --format json`` prints it (:meth:`citelint.Project.check_markdown`);
- ``check_report(report, name)``: the same for a fact report (an object, or its JSON/YAML text);
- ``find_quote(source, text, revision)``: whether a text occurs in the committed captures of
  a source, matched as a prose quotation is (CL205), with where, or the nearest passage;
- ``list_sources()``: the approved sources and their committed, verified revisions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
except ImportError as exc:  # the extra is not installed: say which one
    raise ImportError(f"citelint.integrations.mcp needs the MCP SDK ({exc}): "
                      "pip install 'citelint-provenance[mcp]'") from exc

from citelint import __version__

if TYPE_CHECKING:
    from citelint import Project
    from citelint.passages import RevisionMatch

#: What every tool is: it only reads, the same call gives the same answer, and it reaches
#: nothing outside the project (no network).
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)

INSTRUCTIONS = """\
citelint verifies citations against committed captures of approved sources. Before you
write a quotation, call find_quote with the source URL and the exact text; quote only what
it finds, word for word, and link it to that source. Cite only the sources list_sources
gives. Check the whole draft with check_markdown (or check_report for a fact report) before
you hand it back: a finding at error severity means the draft would fail citelint check.
"""


def build_server(project: Project) -> MCPServer:
    """The MCP server of ``project``, its four tools registered (module docstring).

    Returns:
        An :class:`mcp.server.mcpserver.MCPServer`; ``server.run("stdio")`` serves it.

    Raises:
        UsageError: the config's allowed-signers file cannot be read.
    """
    from citelint.api.project import project_config
    from citelint.context import CommittedCaptures

    config = project_config(project)
    CommittedCaptures(config, project.root)  # an unreadable allowed-signers file fails now, not at each call

    def committed() -> CommittedCaptures:
        # Per call, as check_markdown's own check reads the store and git's index afresh:
        # a capture committed while the server runs counts from then on.
        return CommittedCaptures(config, project.root)

    server = MCPServer(name="citelint", title="citelint: cited excerpts verified against captures",
                       instructions=INSTRUCTIONS, version=__version__)

    @server.tool(annotations=READ_ONLY)
    def check_markdown(markdown: str, name: str = "draft.md") -> dict[str, Any]:
        """Check a Markdown draft against the committed captures: every link must point at a
        captured source, every quotation link (#:~:text=) and every prose quotation must occur
        verbatim in the cited capture. Returns the check as citelint check --format json prints
        it: findings (rule, message, line, column), accepted quotations, counts."""
        return project.check_markdown(markdown, name=name).to_dict()

    @server.tool(annotations=READ_ONLY)
    def check_report(report: dict[str, Any] | str, name: str = "draft.json") -> dict[str, Any]:
        """Check a fact report ({"facts": [...]}, as an object or as JSON or YAML text; YAML
        when name ends in .yaml or .yml): each cited snippet must occur verbatim in the named
        capture of an approved source, each label must be approved. Returns the check as
        citelint check --format json prints it."""
        return project.check_report(report, name=name).to_dict()

    @server.tool(annotations=READ_ONLY)
    def find_quote(source: str, text: str, revision: str | None = None) -> dict[str, Any]:
        """Whether text occurs in the committed captures of source (an approved source URL,
        exactly), matched as a prose quotation is: any whitespace run equals any other.
        revision (a capture digest or its start) limits the search to that revision. Returns
        each revision newest first, with the line, column and passage of each occurrence, or
        why it is not there and the nearest passage."""
        from citelint.passages import find_text, wanted_text

        if not config.is_approved(source):
            raise ToolError(f"{source!r} is not an approved source: list_sources gives the ones to cite")
        if wanted_text(text) is None:
            raise ToolError("text has no visible character")
        if revision is not None and re.fullmatch(r"[0-9a-fA-F]{4,64}", revision) is None:
            raise ToolError(f"revision {revision[:70]!r} is no capture digest: give 4 to 64 hex "
                            "characters of one (list_sources gives them)")
        records, left_out = committed().revisions(source)
        matches = find_text(records, text, revision)
        if revision is not None and not matches:
            raise ToolError(f"revision {revision} names no committed, verified revision of {source!r} "
                            "(list_sources gives them)")
        return {"source": source, "found": any(m.found for m in matches),
                "revisions": [_match(m) for m in matches],
                "notCommitted": [{"revision": r.sha256, "why": why} for r, why in left_out]}

    @server.tool(annotations=READ_ONLY)
    def list_sources() -> dict[str, Any]:
        """The approved sources, each with its committed, verified revisions (digest,
        retrievedAt, contentType, size), newest last. Cite only these sources."""
        out = []
        evidence = committed()
        for source in config.sources:
            records, _ = evidence.revisions(source)
            out.append({"source": source, "revisions": [
                {"revision": r.sha256, "retrievedAt": r.retrieved_at, "contentType": r.content_type,
                 "bytes": r.bytes, "batch": r.batch} for r in records]})
        return {"sources": out}

    return server


def _match(match: RevisionMatch) -> dict[str, Any]:
    """One :class:`citelint.passages.RevisionMatch` as JSON data."""
    return {"revision": match.sha256, "retrievedAt": match.retrieved_at, "found": match.found,
            "occurrences": [{"line": o.line, "column": o.column, "offset": o.offset, "passage": o.passage}
                            for o in match.occurrences],
            "more": match.more, "miss": match.miss or None, "nearest": match.nearest or None}


def serve(project: Project) -> None:
    """Serve ``project``'s tools over stdio (standard input and output carry the protocol)
    until the client closes the connection."""
    build_server(project).run("stdio")


__all__ = ["INSTRUCTIONS", "READ_ONLY", "build_server", "serve"]
