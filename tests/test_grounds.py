"""LinkEvidence.decide: one reason per governed link, and the one rule judge reports for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from citelint.check.grounding import build_allowlist
from citelint.config import load_config
from citelint.links import Allowlist, LinkEvidence, Reason, govern
from citelint.store.captures import Store, make_record
from citelint.store.writer import write_capture

GROUNDED = "https://example.org/captured"
ALLOWED = "https://docs.example/page"
CORRUPT = "https://example.org/corrupt"
UNTRACKED = "https://example.org/untracked"
UNSIGNED = "https://example.org/unsigned"
BAD = "https://example.org/bad-signature"
STRANGER = "https://example.org/stranger"
NOWHERE = "https://example.org/capturedd"  # one edit from GROUNDED: a near miss

EVIDENCE = LinkEvidence(
    Allowlist([GROUNDED], [ALLOWED]), Allowlist([CORRUPT]), Allowlist([UNTRACKED]), None,
    [(Allowlist([UNSIGNED]), Reason.UNSIGNED, "no allowed signature"),
     (Allowlist([BAD]), Reason.BAD_SIGNATURE, "signature s.sig: does not verify"),
     (Allowlist([STRANGER]), Reason.SIGNER_NOT_ALLOWED, "signature t.sig: signer not allowed")])


@pytest.mark.parametrize(("url", "reason", "detail"), [
    (GROUNDED, Reason.GROUNDED, ""),
    ("HTTPS://EXAMPLE.ORG/captured", Reason.GROUNDED, ""),  # by identity, as any link
    (ALLOWED, Reason.GROUNDED, ""),
    (NOWHERE, Reason.UNCAPTURED, ""),
    (CORRUPT, Reason.CORRUPT, ""),
    (UNTRACKED, Reason.UNTRACKED, ""),
    (UNSIGNED, Reason.UNSIGNED, "no allowed signature"),
    (BAD, Reason.BAD_SIGNATURE, "signature s.sig: does not verify"),
    (STRANGER, Reason.SIGNER_NOT_ALLOWED, "signature t.sig: signer not allowed"),
    ("javascript:alert(1)", Reason.UNCAPTURED, ""),
])
def test_decide_gives_each_reason(url: str, reason: Reason, detail: str) -> None:
    decision = EVIDENCE.decide(url)
    assert (decision.reason, decision.detail) == (reason, detail)


def test_an_identity_in_several_lists_is_decided_in_repair_order() -> None:
    # Two spellings of one source, one corrupt and one untracked: corrupt is named.
    both = LinkEvidence(Allowlist([]), Allowlist([CORRUPT]), Allowlist([CORRUPT + "#x"]))
    assert both.decide(CORRUPT).reason is Reason.CORRUPT
    # A spelling that grounds wins over one whose captures are corrupt.
    grounded = LinkEvidence(Allowlist([GROUNDED]), Allowlist([GROUNDED.upper()]))
    assert grounded.decide(GROUNDED).reason is Reason.GROUNDED


def test_judge_reports_the_one_rule_of_each_reason() -> None:
    md = "".join(f"[{i}]({url})\n\n" for i, url in enumerate(
        [GROUNDED, ALLOWED, NOWHERE, CORRUPT, UNTRACKED, UNSIGNED, BAD, STRANGER]))
    _, issues = govern(md, EVIDENCE)
    assert [(i.rule, i.line, i.near_miss) for i in issues] == [
        ("CL201", 5, GROUNDED), ("CL103", 7, None), ("CL109", 9, None), ("CL401", 11, None),
        ("CL402", 13, None), ("CL403", 15, None)]
    assert [i.message for i in issues[1:]] == [
        f"link to {CORRUPT}: every capture of this source fails verification, so it grounds nothing; restore the "
        "capture files from version control or capture the source again (`citelint ls` lists them); --fix leaves "
        "this link alone",
        f"link to {UNTRACKED}: its captures are neither committed nor staged in git, so this check passes here and "
        "fails in a clean clone; `git add` the captures directory",
        f"link to {UNSIGNED}: no allowed signature",
        f"link to {BAD}: signature s.sig: does not verify",
        f"link to {STRANGER}: signature t.sig: signer not allowed",
    ]
    assert issues[0].message.startswith(f"ungrounded link {NOWHERE}: no captured source has this identity")


def test_build_allowlist_sorts_the_sources_by_their_evidence(tmp_path: Path) -> None:
    (tmp_path / "citelint.yaml").write_text(f'sources: ["{GROUNDED}", "{CORRUPT}", "{NOWHERE}"]\nlabels: []\n',
                                            encoding="utf-8")
    captures = tmp_path / "captures"
    write_capture(captures, make_record(GROUNDED, "A captured text."))
    bad = write_capture(captures, make_record(CORRUPT, "A text altered after capture.")).path
    bad.write_bytes(bad.read_bytes().replace(b"altered", b"changed"))
    config = load_config(None, tmp_path)
    evidence = build_allowlist(config, Store(config.captures_dir))
    assert [evidence.decide(url).reason for url in (GROUNDED, CORRUPT, NOWHERE)] == [
        Reason.GROUNDED, Reason.CORRUPT, Reason.UNCAPTURED]
    assert evidence.untracked is None and not evidence.unsigned


def test_every_reason_names_a_rule_in_the_catalog() -> None:
    from citelint.model import RULES

    assert Reason.GROUNDED.rule is None
    assert all(reason.rule in RULES and RULES[reason.rule].blocking for reason in Reason if reason.rule)
    assert Reason("CL402") is Reason.BAD_SIGNATURE  # how the verifier's rule becomes a reason
