"""Correctors that compute fixes with models (RAC); the cheap, finding-local fixes: :mod:`faithlint.fixes.edits`."""
