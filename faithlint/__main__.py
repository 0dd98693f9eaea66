"""``python -m faithlint`` runs the CLI."""

import sys

if sys.argv[1:2] == ["serve"] and not {"-h", "--help"} & set(sys.argv[2:]):
    # the language server (editors start it this way): its models start loading before the CLI imports
    from faithlint.pipeline import preloading

    preloading.start()

from faithlint.cli.app import main  # noqa: E402

raise SystemExit(main())
