"""Signed evidence: who vouched for a capture (CL401-CL403).

Modules, one job each:

- ``verify``: the in-toto statement, its DSSE signature file, and the
  verifier ``check`` runs against ``evidence.allowed_signers``.
- ``sshsig``: SSH signatures (SSHSIG): parsing and offline verification.
- ``allowed_signers``: git's allowed-signers format: who may sign, for which
  namespace, and when.
- ``ledger``: the review ledger read for a run: which signed review counts
  for each citation's fingerprint (docs/reviews.md).
"""
