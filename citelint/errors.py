"""The errors citelint raises to its callers, under one base.

Every error here but :class:`FindingsError` means "the run cannot go on as
asked" and maps to exit 2 on the command line (:mod:`citelint.cli`);
findings about reports and captures are never exceptions unless the caller
asks for one (``Result.raise_for_errors``). Catch :class:`CitelintError` to
handle them all.

The others live with their subject, under these: ``GitBaseError``
(:mod:`citelint.git.probe`, ``--base`` unusable), ``CaptureRefused``
(:mod:`citelint.capture.policy`, a source not captured),
``SignError`` (:mod:`citelint.capture.sign`) and ``SignersError``
(:mod:`citelint.evidence.allowed_signers`), both usage errors.
"""

from __future__ import annotations


class CitelintError(Exception):
    """Base of every error citelint raises: unusable input it cannot report as
    a finding (usage, config, a refused capture), and, only when asked, a
    check that failed (:class:`FindingsError`)."""


class UsageError(CitelintError):
    """A command-line or call problem (exit 2): a named path does not exist, a
    flag's value is out of range, a file is not one citelint may read."""


class ConfigError(CitelintError):
    """An unusable configuration (exit 2). ``str()`` is ``path:line:col: message``
    when a position is known."""


class FindingsError(CitelintError):
    """Raised only when asked (``Result.raise_for_errors()``): the check ran
    and found errors (what exit 1 means on the command line). ``result`` is
    the whole :class:`citelint.Result`; ``findings`` the failing findings
    (empty when a strict check failed for want of any file); ``str()`` lists
    them, one ``path:line:col: CLxxx message [name]`` a line (untrusted
    text, unescaped)."""

    def __init__(self, result: object, findings: list) -> None:
        self.result, self.findings = result, tuple(findings)
        if not self.findings:
            super().__init__("no file was checked (nothing matched), which fails a strict check")
            return
        shown = "\n".join(map(str, self.findings[:20]))
        more = f"\n… and {len(self.findings) - 20} more" if len(self.findings) > 20 else ""
        n = len(self.findings)
        super().__init__(f"{n} finding{'s fail' if n != 1 else ' fails'} the check:\n{shown}{more}")
