"""The capture store: committed, append-only evidence under ``captures/``.

Modules, one job each:

- ``record``: the capture record (v1 and v2), its strict parsing and digests.
- ``captures``: the store's layout and verified lookup (CL102, CL103).
- ``writer``: the evidence writer (captures, raw bodies, signatures, reviews), create-only.
- ``reviews``: the review ledger's records (``citelint.review/1``) and their layout.
- ``legacy``: legacy files (CL107) and ``migrate``.
"""
