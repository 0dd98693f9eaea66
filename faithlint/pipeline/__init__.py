"""The check itself: the stage protocols, the Linter that wires them, aggregators, figures, preloading, counters."""
