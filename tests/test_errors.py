"""Every error that stops a run derives from citelint.errors.CitelintError."""

from __future__ import annotations

import pytest

from citelint.capture.policy import CaptureRefused, check_settings
from citelint.capture.sign import SignError
from citelint.errors import CitelintError, ConfigError, UsageError
from citelint.evidence.allowed_signers import SignersError
from citelint.git.probe import BaseNotFetched, GitBaseError
from citelint.settings import CaptureSettings


@pytest.mark.parametrize("error", [UsageError, ConfigError, GitBaseError, BaseNotFetched, CaptureRefused,
                                   SignError, SignersError])
def test_run_stopping_errors_share_one_base(error: type[Exception]) -> None:
    assert issubclass(error, CitelintError)


def test_key_and_signer_problems_are_usage_errors() -> None:
    assert issubclass(SignError, UsageError) and issubclass(SignersError, UsageError)


def test_a_refused_capture_setting_is_caught_as_a_citelint_error() -> None:
    with pytest.raises(CitelintError, match="timeout"):
        check_settings(CaptureSettings(timeout_s=-1))
