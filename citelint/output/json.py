"""JSON output, described by ``schemas/output.schema.json``.

The object carries the citelint version, every finding, the accepted facts
(with the snippet's code-point offset in its capture) and quotations, each
with its review fingerprint and the review that counts for it, the
semantic-review list and the counts. ``finding_to_dict`` is shared with SARIF and summaries.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from citelint.model import RULES, AcceptedFact, AcceptedQuotation, CheckResult, Finding, FixedLink, Review
from citelint.output import RenderOptions, visible

OUTPUT_FORMAT = "citelint.output/1"


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    """A finding as a JSON-ready dict (1-based line/column in code points); ``capture``
    (the revision a quotation link was checked against) only when the finding has one."""
    out = {
        "path": finding.path,
        "line": finding.line,
        "column": finding.col,
        "endLine": finding.end_line,
        "endColumn": finding.end_col,
        "rule": finding.rule,
        "name": finding.name,
        "severity": finding.severity,
        "message": finding.message,
    }
    if finding.capture is not None:
        out["capture"] = finding.capture
    return out


def fixed_to_dict(fixed: FixedLink) -> dict[str, Any]:
    """A link ``--fix`` removed, in a finding's JSON shape (``schemas/output.schema.json``
    lists ``fixed`` as findings): its old position, no end, the rule and severity of
    the finding it would have been."""
    return {
        "path": fixed.path,
        "line": fixed.line,
        "column": fixed.col,
        "endLine": None,
        "endColumn": None,
        "rule": fixed.rule,
        "name": RULES[fixed.rule].name,
        "severity": fixed.severity,
        "message": fixed.message,
    }


def counts(result: CheckResult) -> dict[str, int]:
    """The counts shared by every machine-readable format (keys in camelCase)."""
    fields = ("files", "facts_cited", "facts_unavailable", "facts_invalid", "links", "links_grounded")
    out = {_camel(name): getattr(result, name) for name in fields}
    out.update(errors=result.count("error"), warnings=result.count("warning"), semanticReview=result.review_count,
               quotations=len(result.quotations), reviewed=result.reviewed, rejected=result.rejected)
    return out


def review_to_dict(review: Review | None) -> dict[str, Any] | None:
    """An accepted citation's review as JSON (``{verdict, by, at, note}``), or None when it has none."""
    return None if review is None else {"verdict": review.verdict, "by": review.by, "at": review.at,
                                        "note": review.note}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def accepted_to_dict(citation: AcceptedFact | AcceptedQuotation) -> dict[str, Any]:
    """An accepted fact or quotation as the ``accepted`` array lists it
    (``schemas/output.schema.json``: ``accepted`` or ``acceptedQuotation``),
    shared with ``citelint review --format json``."""
    if isinstance(citation, AcceptedQuotation):
        q = citation
        return {
            "path": q.path, "line": q.line, "column": q.col, "kind": "quotation", "form": q.form,
            "sentence": q.sentence, "text": q.text, "source": q.source, "capture": q.capture, "label": q.label,
            "insertions": list(q.insertions), "fingerprint": q.fingerprint,
            "reviewed": review_to_dict(q.reviewed),
        }
    d = citation._asdict()
    return {
        "path": d["path"], "line": d["line"], "column": d["col"], "kind": "fact", "state": d["state"],
        "label": d["label"], "source": d["source"], "captureSha256": d["capture_sha256"],
        "snippet": d["snippet"], "offset": d["offset"], "reason": d["reason"],
        "review": list(d["review"]), "fingerprint": citation.fingerprint, "reviewed": review_to_dict(citation.reviewed),
    }


def to_dict(result: CheckResult, options: RenderOptions) -> dict[str, Any]:
    """The whole JSON document as a dict."""
    citations: list[AcceptedFact | AcceptedQuotation] = [*result.accepted, *result.quotations]
    accepted = [accepted_to_dict(c) for c in citations]
    return {
        "format": OUTPUT_FORMAT,
        "citelint": options.version,
        "findings": [finding_to_dict(f) for f in visible(result.ordered(), options)],
        "accepted": accepted,
        "semanticReview": [finding_to_dict(f) for f in sorted(result.notices)],
        "fixed": [fixed_to_dict(f) for f in result.fixed],
        "warnings": list(result.warnings_text),
        "counts": counts(result),
    }


def render(result: CheckResult, out: TextIO, options: RenderOptions) -> None:
    """Write the JSON document (UTF-8, non-ASCII kept, one trailing newline)."""
    json.dump(to_dict(result, options), out, ensure_ascii=False, indent=2)
    out.write("\n")
