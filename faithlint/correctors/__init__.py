"""Correctors that compute fixes with models (RAC); the cheap, finding-local ones live in :mod:`faithlint.fixes`."""
