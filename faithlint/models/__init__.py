"""The models: checkers (NLI over ONNX/OpenVINO/torch, the LLM checker, the surrogate) and LLM generation.

The bundled weights live in the folders beside this package's modules: ``default/`` (the checker, its span head
and grounding), ``embedding/`` (all-MiniLM-L6-v2 for relevance) and ``monitor/`` (the monitor's probe).
"""
