"""The documented import path of the capture stage, kept for compatibility.

``from citelint.fetch import record_text`` keeps working; new code imports
from :mod:`citelint.capture`, which this module re-exports unchanged.
"""

from __future__ import annotations

from citelint.capture import *  # noqa: F401,F403
from citelint.capture import __all__  # noqa: F401
