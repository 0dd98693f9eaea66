"""Checking many drafts: the batch engine, its rows (JSONL pairs in, results out), the Ray engine."""
