"""Lint rules beyond the NLI verdict (FL400 values and friends)."""
