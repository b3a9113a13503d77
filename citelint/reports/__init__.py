"""Reading reports: strict JSON and YAML with positions, and their schemas.

Modules, one job each:

- ``document``: the strict layer both parsers share: Document, ParseFailure, the line index, depth, surrogates.
- ``loaders``: bounded reads as strict UTF-8, and loading a report by its kind (CL001).
- ``json``: the one strict JSON policy: the C-decoder fast path, positions computed on demand.
- ``yaml``: YAML 1.2 core-schema documents with positions (libyaml where present).
- ``schema``: the packaged JSON Schemas and precise CL002 messages.
- ``quickcheck``: a schema compiled to a positive-only predicate.
- ``_quickchecks``: those predicates for the packaged schemas (generated).
- ``pointers``: JSON Pointers (RFC 6901).
- ``columns``: the source column of a character inside a string value.
"""
