"""SARIF 2.1.0 output for code scanning (``--format sarif``, ``--sarif-file``).

One run whose ``tool.driver`` carries the citelint version and the whole
rule catalog (help text with a failing and a passing example, ``helpUri``
to the rule's section of docs/rules.md), and one result per finding with its physical
location. Columns count Unicode code points, which SARIF states with
``columnKind: unicodeCodePoints`` (citelint's columns are code points
everywhere, DESIGN §3); end columns are exclusive in both.
Semantic-review entries (CL901) are results of level ``note``.
Spec: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
GitHub's subset: https://docs.github.com/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning
"""

from __future__ import annotations

import json
from typing import Any, TextIO
from urllib.parse import quote

from citelint import __version__
from citelint.model import RULES, CheckResult, Finding, Rule
from citelint.escape import code_span
from citelint.output import RenderOptions, visible
from citelint.output.json import counts, finding_to_dict

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/citelint/citelint"

#: citelint severity -> SARIF ``level`` (SARIF has no "notice": its "note" is the same idea).
LEVELS = {"error": "error", "warning": "warning", "notice": "note"}


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    text = f"{rule.summary}\n\nFails: {rule.bad}\nPasses: {rule.good}"
    markdown = (f"{rule.summary}\n\n**Fails:** {code_span(rule.bad)}\n\n**Passes:** {code_span(rule.good)}\n\n"
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
    """A relative URI reference for a POSIX path (spaces, ``%``, ``#``, ``?`` escaped)."""
    return quote(path, safe="/-._~!$&'()*+,;=:@")


def _result(finding: Finding, rule_index: dict[str, int]) -> dict[str, Any]:
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
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": _uri(d["path"]), "uriBaseId": "%SRCROOT%"},
                "region": region,
            },
        }],
    }


def to_dict(result: CheckResult, options: RenderOptions) -> dict[str, Any]:
    """The SARIF log as a dict (one run)."""
    version = options.version or __version__
    rule_index = {rule_id: i for i, rule_id in enumerate(RULES)}
    shown = visible(result.ordered(), options)
    if not options.quiet:
        shown = shown + sorted(result.notices)
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
            "columnKind": "unicodeCodePoints",
            "results": [_result(f, rule_index) for f in shown],
            "properties": {"counts": counts(result)},
        }],
    }


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Write the SARIF log (UTF-8, non-ASCII kept, one trailing newline)."""
    json.dump(to_dict(result, options), out, ensure_ascii=False, indent=2)
    out.write("\n")
