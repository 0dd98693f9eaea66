"""Output formats: one registry of renderers (text, JSON, SARIF, GitHub, HTML...)."""
