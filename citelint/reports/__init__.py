"""Reading reports: strict JSON and YAML with positions, and their schemas.

Modules, one job each:

- ``loaders``: bounded reads, strict JSON, positions computed on demand (CL001).
- ``yaml``: YAML 1.2 core-schema documents with positions (libyaml where present).
- ``schema``: the packaged JSON Schemas and precise CL002 messages.
- ``quickcheck``: a schema compiled to a positive-only predicate.
- ``_quickchecks``: those predicates for the packaged schemas (generated).
- ``pointers``: JSON Pointers (RFC 6901).
- ``columns``: the source column of a character inside a string value.
"""
