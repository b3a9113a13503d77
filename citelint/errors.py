"""The errors citelint raises to its callers, under one base.

Every error here means "the run cannot go on as asked" and maps to exit 2 on
the command line (:mod:`citelint.cli`); findings about reports and captures
are never exceptions. Catch :class:`CitelintError` to handle them all.

The others live with their subject, under these: ``GitBaseError``
(:mod:`citelint.git.probe`, ``--base`` unusable), ``CaptureRefused``
(:mod:`citelint.capture.policy`, a source not captured),
``SignError`` (:mod:`citelint.capture.sign`) and ``SignersError``
(:mod:`citelint.evidence.allowed_signers`), both usage errors.
"""

from __future__ import annotations


class CitelintError(Exception):
    """Base of the errors citelint raises for unusable input it cannot report as a finding."""


class UsageError(CitelintError):
    """A command-line or call problem (exit 2): a named path does not exist, a
    flag's value is out of range, a file is not one citelint may read."""


class ConfigError(CitelintError):
    """An unusable configuration (exit 2). ``str()`` is ``path:line:col: message``
    when a position is known."""
