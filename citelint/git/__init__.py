"""What git says of the captures directory: ``--base`` (CL301, CL302) and CL109.

Modules, one job each:

- ``base``: which base revision, and what changed in ``captures/`` since it.
- ``probe``: ``diff-index``, ``diff-files`` and ``ls-tree`` over the captures prefix.
- ``index``: git's index file read directly (capture entries and stat data).
- ``tracked``: which capture files git has, tracked or staged (CL109, ``citelint context``).
- ``proc``: read-only git processes, started without the subprocess module.
"""
