"""The SynCheck-style monitor: decoding signals of a surrogate LM plus the checker's verdict, combined
by a small trained aggregator into one faithfulness probability per sentence (see docs/monitor.md)."""
