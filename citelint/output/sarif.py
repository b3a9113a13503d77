"""SARIF 2.1.0 output for code scanning (``--format sarif``, ``--sarif-file``).

One run whose ``tool.driver`` carries the citelint version and the whole
rule catalog (help text with a failing and a passing example, ``helpUri``
to the rule's section of docs/rules.md), and one result per finding with its physical
location. Columns count Unicode code points, which SARIF states with
``columnKind: unicodeCodePoints`` (citelint's columns are code points
everywhere, DESIGN §3); end columns are exclusive in both.
Accepted citations (CL901, semantic review) are not results: they are
not problems, and a code-scanning alert for each would never close; their
counts (unreviewed, reviewed, rejected in review) are in the run's
``properties``. Each result carries
``partialFingerprints["citelint/v1"]``, a digest of what the finding is
about rather than where it is (rule, file, message with line and column
numbers taken out, and its rank among identical findings), so an alert
follows its finding when lines move. GitHub's limits (25,000 results per
run) are kept: beyond them results are dropped and a
``toolExecutionNotification`` says how many.
Spec: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
GitHub's subset: https://docs.github.com/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, TextIO
from urllib.parse import quote

from citelint import __version__
from citelint.escape import code_span
from citelint.model import RULES, CheckResult, Finding, Rule
from citelint.output import RenderOptions, visible
from citelint.output.json import counts, finding_to_dict

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/citelint/citelint"

#: citelint severity -> SARIF ``level`` (SARIF has no "notice": its "note" is the same idea).
LEVELS = {"error": "error", "warning": "warning", "notice": "note"}

#: GitHub code scanning keeps at most this many results of one run (its "SARIF support" page).
MAX_RESULTS = 25_000

#: Positions written into messages ("first at line 12"): not part of what a finding is about.
_POSITIONS = re.compile(r"\b(lines?|col(?:umn)?s?|offset|byte) \d+")


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    text = (f"{rule.summary}\n\nWhy: {rule.why}\n\nHow to fix: {rule.fix}\n\n"
            f"Fails: {rule.bad}\nPasses: {rule.good}")
    markdown = (f"{rule.summary}\n\n**Why:** {rule.why}\n\n**How to fix:** {rule.fix}\n\n"
                f"**Fails:** {code_span(rule.bad)}\n\n**Passes:** {code_span(rule.good)}\n\n"
                f"[{rule.id} in the citelint documentation]({rule.help_uri})")
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary.split(". ")[0].rstrip(".") + "."},
        "fullDescription": {"text": rule.summary},
        "help": {"text": text, "markdown": markdown},
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["citelint"], "locked": rule.locked},
    }


def _uri(path: str) -> str:
    """A relative URI reference for a POSIX path (spaces, ``%``, ``#``, ``?`` escaped;
    a name that is not UTF-8 by its own bytes, as ``os.fsdecode`` kept them)."""
    return quote(path, safe="/-._~!$&'()*+,;=:@", errors="surrogateescape")


def fingerprint(finding: Finding, rank: int) -> str:
    """The ``citelint/v1`` partial fingerprint of ``finding``: SHA-256 (hex) of its
    rule, path, message without line/column numbers and ``rank`` (how many identical
    findings come before it in the output), so it survives lines moving."""
    about = _POSITIONS.sub(r"\1 #", finding.message)
    return hashlib.sha256("\0".join((finding.rule, finding.path, about, str(rank))).encode("utf-8",
                                                                                        "surrogatepass")).hexdigest()


def _result(finding: Finding, rule_index: dict[str, int], rank: int, repo_prefix: str = "") -> dict[str, Any]:
    d = finding_to_dict(finding)
    region: dict[str, int] = {"startLine": d["line"], "startColumn": d["column"]}
    end_line = d["endLine"] if d["endLine"] is not None else d["line"]
    # SARIF rejects an end before the start; a missing end means "to the end of the start line".
    if (end_line, d["endColumn"] or 0) >= (d["line"], d["column"]):
        if end_line != d["line"]:
            region["endLine"] = end_line
        if d["endColumn"] is not None:
            region["endColumn"] = d["endColumn"]
    return {
        "ruleId": d["rule"],
        "ruleIndex": rule_index[d["rule"]],
        "level": LEVELS[d["severity"]],
        "message": {"text": d["message"]},
        "partialFingerprints": {"citelint/v1": fingerprint(finding, rank)},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": _uri(repo_prefix + d["path"]), "uriBaseId": "%SRCROOT%"},
                "region": region,
            },
        }],
    }


def to_dict(result: CheckResult, options: RenderOptions) -> dict[str, Any]:
    """The SARIF log as a dict (one run)."""
    version = options.version or __version__
    rule_index = {rule_id: i for i, rule_id in enumerate(RULES)}
    shown = visible(result.ordered(), options)
    ranks: dict[tuple[str, str, str], int] = {}
    results = []
    for f in shown[:MAX_RESULTS]:
        key = (f.rule, f.path, _POSITIONS.sub(r"\1 #", f.message))
        ranks[key] = ranks.get(key, -1) + 1
        results.append(_result(f, rule_index, ranks[key], options.repo_prefix))
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if len(shown) > MAX_RESULTS:
        invocation["toolExecutionNotifications"] = [{
            "level": "warning",
            "message": {"text": f"{len(shown) - MAX_RESULTS} more findings are not in this log: code scanning "
                                f"keeps {MAX_RESULTS} results per run; `citelint check --format json` lists all"}}]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "citelint",
                    "version": version,
                    "semanticVersion": version,
                    "informationUri": INFORMATION_URI,
                    "rules": [_rule_descriptor(rule) for rule in RULES.values()],
                },
            },
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
            "results": results,
            # The three tiers as counts: excerpt verified only (semanticReview), reviewed: supports and
            # reviewed: does not support (reviewed - rejected, rejected); no result for any of them.
            "properties": {"counts": counts(result), "acceptedCitations": result.review_count + result.reviewed},
        }],
    }


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Write the SARIF log (UTF-8, non-ASCII kept, one trailing newline)."""
    json.dump(to_dict(result, options), out, ensure_ascii=False, indent=2)
    out.write("\n")
