"""Training-side code: everything that makes or fine-tunes the model, none of it used by the linter at run time.

- :mod:`faithlint.train.training`: fine-tune the 3-way NLI cross-encoder (``training/train.py``,
  ``faithlint train``); ``predict`` and ``pairs_per_second`` for export and benchmarks;
- :mod:`faithlint.train.synth`: synthetic faithful/hallucinated pairs from real contexts (``faithlint synth``);
- :mod:`faithlint.train.synth_kinds`: the paraphrase, fusion, data-to-text and mixed kinds of ``synth``;
- :mod:`faithlint.train.splits`: the deterministic synth/unseen and train/calib split of contexts.
- :mod:`faithlint.train.ragtruth`: the RAGTruth split by source into training, calibration and development parts.

Nothing is imported here, so ``import faithlint.train.splits`` stays light (no torch, no spaCy). The package
imports only the core library (never ``faithlint.cli.app``, ``faithlint.server`` or ``faithlint.watch``;
``lint-imports`` checks it).
"""
