"""Caches shared by the pipeline: digests of long texts and the on-disk cache."""
