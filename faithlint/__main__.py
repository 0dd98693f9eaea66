"""``python -m faithlint`` runs the CLI."""

from faithlint.cli import main

raise SystemExit(main())
