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


# ---------------------------------------------------------------- sources sorted out when a link needs them

def _eager(sources: list[str], decisions: dict[str, tuple[Reason, str]], allow: list[str],
           ignored: list[str]) -> LinkEvidence:
    """The evidence as it was built before sources were sorted lazily: one list per reason."""
    def listed(reason: Reason) -> list[str]:
        return [s for s in sources if decisions[s][0] is reason]

    unsigned = [(Allowlist([s], (), ignored), decisions[s][0], decisions[s][1]) for s in sources
                if decisions[s][0] in (Reason.UNSIGNED, Reason.BAD_SIGNATURE, Reason.SIGNER_NOT_ALLOWED)]
    return LinkEvidence(Allowlist(listed(Reason.GROUNDED), allow, ignored),
                        Allowlist(listed(Reason.CORRUPT), (), ignored) if listed(Reason.CORRUPT) else None,
                        Allowlist(listed(Reason.UNTRACKED), (), ignored) if listed(Reason.UNTRACKED) else None,
                        None, unsigned)


@pytest.mark.parametrize("seed", range(60))
def test_lazy_evidence_answers_as_the_lists_would(seed: int) -> None:
    """Sources sharing identities (case, www., a trailing slash, a fragment, an HTML escape,
    an ignored query parameter) with every reason: the lazy evidence decides, names the
    captured source and the near miss, counts and says empty exactly as one list per reason."""
    import random

    from citelint.links.grounds import DECISIONS, Decision

    rng = random.Random(seed)
    paths = ["/a", "/ab", "/b", "/docs/x", "/docs/y", "/q?id=1", "/q?id=1&amp;p=2", "/q?id=1&utm_source=z"]
    spellings = ["https://{h}{p}", "https://WWW.{h}{p}", "https://{h}{p}#frag", "http://{h}{p}/",
                 "HTTPS://{h}{p}"]
    # Few hosts and paths, many spellings: most identities are shared by several sources.
    sources = list(dict.fromkeys(rng.choice(spellings).format(h=rng.choice(["ex.org", "www.ex.org", "o.net"]),
                                                              p=rng.choice(paths[:rng.choice([2, 8])]))
                                 for _ in range(rng.randint(0, 14))))
    reasons = [Reason.GROUNDED, Reason.UNCAPTURED, Reason.CORRUPT, Reason.UNTRACKED, Reason.UNSIGNED,
               Reason.BAD_SIGNATURE]
    decisions = {s: (rng.choice(reasons), f"detail of {s}") for s in sources}
    decisions = {s: (r, d if r in (Reason.UNSIGNED, Reason.BAD_SIGNATURE) else "") for s, (r, d) in decisions.items()}
    allow = rng.choice([[], ["https://o.net/docs/*"], ["https://ex.org/b"]])
    ignored = rng.choice([[], ["utm_source"]])
    asked: list[str] = []

    def classify(source: str) -> Decision:
        asked.append(source)
        reason, detail = decisions[source]
        return Decision(reason, detail) if detail else DECISIONS[reason]

    eager = _eager(sources, decisions, allow, ignored)
    memo: dict[str, Decision] = {}

    def remembered(source: str) -> Decision:
        if source not in memo:
            memo[source] = classify(source)
        return memo[source]

    lazy = LinkEvidence(Allowlist(sources, allow, ignored,
                                  captured=lambda s: remembered(s).reason is Reason.GROUNDED),
                        classify=remembered)
    hrefs = sources + [f"https://{h}{p}" for h in ("ex.org", "o.net", "www.o.net") for p in paths + ["/ac", "/docs/"]]
    for href in hrefs:
        assert lazy.decide(href) == eager.decide(href), href
        assert lazy.grounding.decide(href) == eager.grounding.decide(href), href
        assert lazy.grounding.captured_source(href) == eager.grounding.captured_source(href), href
        assert lazy.grounding.near_miss(href) == eager.grounding.near_miss(href), href
    assert lazy.grounding.decide_all([*hrefs, None]) == eager.grounding.decide_all([*hrefs, None])
    assert lazy.is_empty(sources) == eager.is_empty()
    assert len(lazy.grounding) == len(eager.grounding)


@pytest.mark.parametrize("allow", ["https://allowed.example/x", "https://allowed.example/*"])
def test_an_allowlist_with_links_allow_is_not_empty_without_asking_any_source(allow: str) -> None:
    asked: list[str] = []

    def captured(source: str) -> bool:
        asked.append(source)
        return False

    sources = [f"https://s{i}.example/doc" for i in range(50)]
    lazy = Allowlist(sources, allow=[allow], captured=captured)
    assert not lazy.is_empty() and asked == []
    assert Allowlist(sources, captured=captured).is_empty() and len(asked) == 50


def test_a_markdown_check_reads_the_captures_of_the_linked_sources_only(tmp_path: Path) -> None:
    """With many approved sources, a Markdown report of two links verifies the captures of the
    one approved source it links (an audit hook sees which capture files are opened). A link
    near approved sources would have them verified too, to name a captured near miss."""
    import os
    import sys

    import audit
    from citelint.check.run import run_check
    from citelint.store.captures import sha256_hex

    sys.dont_write_bytecode = True
    sources = [f"https://example.org/doc/{i}" for i in range(30)]
    (tmp_path / "citelint.yaml").write_text("sources:\n" + "".join(f"  - {s}\n" for s in sources)
                                            + "labels: []\nmarkdown: ['*.md']\n", encoding="utf-8")
    for source in sources:
        write_capture(tmp_path / "captures", make_record(source, f"The text of {source}."))
    (tmp_path / "a.md").write_text(f"A claim [1]({sources[7]}) and [2](https://elsewhere.example/doc/77).\n",
                                   encoding="utf-8")
    with audit.watching() as events:
        result = run_check(load_config(None, tmp_path), ["a.md"], tmp_path)
    assert [(f.rule, f.line) for f in result.findings] == [("CL201", 1)]
    folder = os.path.realpath(tmp_path / "captures")
    opened = {os.path.basename(os.path.dirname(p)) for p, _ in events.opened if p.startswith(folder + "/")}
    assert opened == {sha256_hex(sources[7])}
