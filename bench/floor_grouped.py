#!/usr/bin/env python3
"""The grouped floor: the least a checker of a fact repository must do, in the shape citelint itself uses.

``python bench/floor_grouped.py ROOT`` reads and ``json``-parses every
report in ``ROOT/reports``, groups the cited snippets by (source,
captureSha256), then, for each capture once, reads its file from the store
layout citelint writes (``ROOT/captures/<sha256(source)>/<captureSha256>.json``),
parses the record, checks that the SHA-256 of its text is the digest, searches
each of its snippets, and drops it: one capture in memory at a time.

``--rules`` adds the work that citelint's default rules require of every
fact and capture beyond finding the snippet, and nothing else: each fact is
a JSON object whose state, label, source, captureSha256 and snippet are
strings (the least of CL002's schema) and no label is in a report twice
(CL004); each snippet is searched again after
its first occurrence (CL105: it must occur once); and each cited source's
directory is listed (CL106: is there a newer revision?). A checker that
enforces those rules cannot do less, so citelint's ratio to this floor is
the part of its cost that is overhead rather than rule.

It prints nothing. Exit status 0 only when every snippet was found in a
capture whose text has the cited digest (a sanity check that the floor did
the work), 1 otherwise. Standard library only, and nothing from ``bench/`` or
citelint, so that its process start-up is a bare interpreter's.
"""

import hashlib
import json
import os
import sys

_FIELDS = ("state", "label", "source", "captureSha256", "snippet")


def main(root: str, rules: bool = False) -> int:
    reports = os.path.join(root, "reports")
    captures = os.path.join(root, "captures")
    groups: dict[tuple[str, str], list[str]] = {}
    facts = 0
    for name in sorted(os.listdir(reports)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(reports, name), "rb") as f:
            report = json.loads(f.read())
        if rules and len({fact.get("label") for fact in report["facts"]}) != len(report["facts"]):
            return 1  # CL004: a label twice in one report
        for fact in report["facts"]:
            facts += 1
            if rules and not (isinstance(fact, dict) and all(isinstance(fact.get(k), str) for k in _FIELDS)):
                return 1
            key = (fact["source"], fact["captureSha256"])
            snippets = groups.get(key)
            if snippets is None:
                groups[key] = snippets = []
            snippets.append(fact["snippet"])
    found = 0
    repeated = 0
    while groups:  # each group dropped as it is done, with its capture
        (source, digest), snippets = groups.popitem()
        folder = os.path.join(captures, hashlib.sha256(source.encode()).hexdigest())
        if rules:
            os.listdir(folder)
        with open(os.path.join(folder, digest + ".json"), "rb") as f:
            text = json.loads(f.read())["text"]
        if hashlib.sha256(text.encode()).hexdigest() == digest:
            if rules:
                for snippet in snippets:
                    at = text.find(snippet)
                    if at >= 0:
                        found += 1
                        repeated += text.find(snippet, at + 1) >= 0
            else:
                for snippet in snippets:
                    found += snippet in text
        del text
    return 0 if facts and found == facts else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    rules = "--rules" in args
    args = [a for a in args if a != "--rules"]
    if len(args) != 1:
        sys.exit("usage: floor_grouped.py [--rules] ROOT")
    sys.exit(main(args[0], rules))
