"""``citelint check --shard K/N``: check one shard's part of the run and write its shard file.

The shard file (JSON, ``schemas/shard.schema.json``) goes to standard output
or ``--output-file``; ``citelint merge`` reads every shard's and prints the
run's output. A shard judges nothing itself: it exits 0 once its file is
written, 2 on a usage or config error. ``--dry-run`` lists what the shard
would check and checks nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from citelint import __version__
from citelint.api.project import check_paths, open_project, project_config
from citelint.check.shard import Shard, parse_shard
from citelint.check.shardfile import run_identity, shard_document
from citelint.cli.common import EXIT_OK, EXIT_USAGE
from citelint.cli.present import output_files, vet
from citelint.errors import ConfigError, UsageError
from citelint.escape import terminal
from citelint.facts import CONTEXT_CHARS

#: Options that shape the output, which a shard does not print: (attribute, flag, its default).
_MERGE_OPTIONS = (("sarif_file", "--sarif-file", None), ("summary_file", "--summary-file", None),
                  ("statistics", "--statistics", False), ("review", "--review", False),
                  ("quiet", "--quiet", False), ("strict", "--strict", False), ("exit_zero", "--exit-zero", False),
                  ("color", "--color", "auto"))


def shard_problem(args: argparse.Namespace) -> str | None:
    """Why the options cannot go with ``--shard`` (or ``--dry-run``), or None."""
    if args.shard is None:
        return "--dry-run goes with --shard K/N: it lists what that shard would check"
    if "-" in args.paths or args.stdin_filename:
        return "--shard checks files: a report on standard input cannot be sharded (check it unsharded)"
    if args.fix:
        return "--shard cannot --fix: run `citelint check --fix` unsharded"
    if args.format not in (None, "json"):
        return (f"--shard writes its shard file as JSON; give --format {args.format} to `citelint merge`, "
                "which prints the run's output")
    for attribute, flag, default in _MERGE_OPTIONS:
        if getattr(args, attribute) != default:
            return f"give {flag} to `citelint merge`, which prints the run's output; a shard writes its shard file"
    return None


def run_shard(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``check --shard K/N [--dry-run]``: returns EXIT_OK once the shard file is
    written (or the listing printed), EXIT_USAGE on a usage or config error."""
    try:
        problem = shard_problem(args)
        if problem:
            raise UsageError(problem)
        k, n = parse_shard(args.shard)
        cwd = Path.cwd()
        try:
            project = open_project(args.config, cwd)
        except ConfigError as exc:
            raise UsageError(f"config error: {exc}") from None
        config = project_config(project)
        outputs = output_files(args, config, list(args.paths))
        refused = vet(outputs)
        if refused:
            raise UsageError(refused[0])
        shard = Shard(k, n, listing=args.dry_run)
        # Context and the base's fingerprints are kept whatever the merge prints: it may print a step summary.
        result = check_paths(project, args.paths, cwd=cwd, base=args.base, jobs=args.jobs,
                             base_missing=args.base_missing, context_chars=CONTEXT_CHARS,
                             base_reports=args.base is not None, shard=shard)
        if args.dry_run:
            out.write(listing(shard))
            return EXIT_OK
        identity = run_identity(config, cwd, args.paths, args.base, args.base_missing, shard.base_commit,
                                shard.inputs)
        doc = shard_document(result, shard, config=config, cwd=cwd, version=__version__, identity=identity)
    except UsageError as exc:
        err.write(f"citelint: {exc}\n")
        return EXIT_USAGE
    # ASCII: a lone surrogate a report held (escaped in its JSON) is written as it was, never refused.
    text = json.dumps(doc, separators=(",", ":")) + "\n"
    if "output" in outputs:
        problem = outputs["output"].write(text)
        if problem:
            err.write(f"citelint: {problem}\n")
            return EXIT_USAGE
    else:
        out.write(text)
    return EXIT_OK


def listing(shard: Shard) -> str:
    """What ``--dry-run`` prints: a count line, then each source the shard
    verifies (its citations and revisions), then each report it checks, in run order."""
    sources: dict[str, tuple[int, int]] = {}
    for (source, _), count in shard.groups:
        citations, revisions = sources.get(source, (0, 0))
        sources[source] = (citations + count, revisions + 1)
    markdown = sum(1 for kind, _ in shard.reports if kind == "markdown")
    cited = sum(c for c, _ in sources.values())
    lines = [f"shard {shard.k}/{shard.n}: {len(sources)} source{'s' * (len(sources) != 1)} "
             f"({cited} citation{'s' * (cited != 1)}), {markdown} Markdown report{'s' * (markdown != 1)}, "
             f"{len(shard.reports) - markdown} fact report{'s' * (len(shard.reports) - markdown != 1)}"]
    lines += [f"source {terminal(source)}: {c} citation{'s' * (c != 1)} of {r} revision{'s' * (r != 1)}"
              for source, (c, r) in sources.items()]
    lines += [f"{kind} {terminal(path)}" for kind, path in shard.reports]
    return "\n".join(lines) + "\n"
