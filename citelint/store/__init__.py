"""The capture store: committed, append-only evidence under ``captures/``.

Modules, one job each:

- ``record``: the capture record (v1 and v2), its strict parsing and digests.
- ``captures``: the store's layout, verified lookup (CL102, CL103), legacy
  files (CL107), ``migrate`` and the exclusive writer for evidence.
"""
