"""Edits to a draft: applying fixes (edits) and the RAC/FOD correctors."""
