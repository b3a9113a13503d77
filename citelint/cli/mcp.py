"""``citelint mcp``: serve read-only citation tools to an agent over MCP (stdio).

Run an MCP server (the official SDK, over standard input and output) whose
tools answer from the project's committed captures: check_markdown,
check_report, find_quote and list_sources. Read-only and offline: no tool
writes a file or opens a connection, so nothing an agent sends becomes
evidence. Needs the mcp extra.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from citelint.cli.common import EXIT_OK, EXIT_USAGE, add_config_option

NAME = "mcp"

EPILOG = """\
examples:
  citelint mcp                           serve the project found from the working directory
  citelint mcp --config docs/citelint.yaml
  {"command": "citelint", "args": ["mcp", "--config", "/path/to/project/citelint.yaml"]}
                                         what an MCP client's server list holds to start it

tools (all read-only, offline):
  check_markdown(markdown, name)         the check of a Markdown draft, as check --format json prints it
  check_report(report, name)             the same for a fact report (an object, or JSON/YAML text)
  find_quote(source, text, revision)     where text occurs in the source's committed captures
                                         (whitespace runs equal), or the nearest passage
  list_sources()                         the approved sources and their committed revisions

Standard output carries the protocol; messages go to standard error.
Install the server's library with: pip install 'citelint-provenance[mcp]'

writes: nothing (read-only)

exit codes: 0 the client closed the connection; 2 usage or config error, or
the mcp extra is not installed
"""


def add_options(p: argparse.ArgumentParser) -> None:
    """Add the ``mcp`` options to its parser."""
    add_config_option(p)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Open the project and serve it over stdio until the client goes away.

    Returns EXIT_OK after the session; EXIT_USAGE for a config error or a missing ``mcp``
    library (said on ``err``; nothing is written to ``out``, which is the protocol's).
    """
    from pathlib import Path

    from citelint.api.project import open_project
    from citelint.errors import CitelintError

    try:
        project = open_project(args.config, Path.cwd())
    except CitelintError as exc:
        err.write(f"citelint: config error: {exc}\n")
        return EXIT_USAGE
    try:
        from citelint.integrations.mcp import build_server
    except ImportError as exc:  # the message names the extra to install
        err.write(f"citelint: {exc}\n")
        return EXIT_USAGE
    try:
        server = build_server(project)
    except CitelintError as exc:
        err.write(f"citelint: {exc}\n")
        return EXIT_USAGE
    server.run("stdio")
    return EXIT_OK
