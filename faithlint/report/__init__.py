"""Output formats: one module per format (text, json_format, sarif, github, html), each registering its renderer
in :mod:`faithlint.report.registry`; :func:`render` dispatches through it. :mod:`faithlint.report.records` is the
JSON schema the formats and :func:`faithlint.to_dict` share."""

from faithlint.report.registry import Format, formats, get, names, register, render

__all__ = ["Format", "formats", "get", "names", "register", "render"]
