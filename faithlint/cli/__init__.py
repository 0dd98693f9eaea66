"""The command line: `faithlint check|fix|watch|serve|rule|...` (app), shared options and helpers."""
