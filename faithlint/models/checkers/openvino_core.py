"""OpenVINO's one Core per process, and what it says about this CPU (kept apart from the checker class, so
that runtime selection can ask without importing the checker)."""

from __future__ import annotations

import sys
import threading
from functools import lru_cache
from typing import Any

from faithlint.errors import first_line
from faithlint.lazy_imports import hidden, lazy_submodule

_CORE_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _core() -> Any:
    return import_openvino().Core()


def import_openvino() -> Any:
    """``import openvino`` without its model converter.

    openvino's ``__init__`` imports ``openvino.tools.ovc`` only to offer ``openvino.convert_model``, and tolerates
    its absence; the converter pulls in openvino's telemetry, urllib and http.client: over 130 modules and
    0.07-0.16 s of import holding the GIL, beside spaCy's in a cold start. It is hidden while openvino first
    imports; ``openvino.convert_model`` and ``openvino.tools.ovc`` import it when first used, and ``import
    openvino.tools.ovc`` works as usual."""
    if "openvino" in sys.modules:
        import openvino as ov

        return ov
    with hidden("openvino.tools.ovc"):
        import openvino as ov
    if not hasattr(ov, "convert_model"):
        def convert_model(*args: Any, **kwargs: Any) -> Any:
            from openvino.tools.ovc import convert_model as real

            return real(*args, **kwargs)

        ov.convert_model = convert_model
        lazy_submodule(ov, "tools", "openvino.tools.ovc")
    return ov


def core() -> Any:
    with _CORE_LOCK:
        return _core()


def cpu_plugin_problem() -> str | None:
    """Why OpenVINO cannot run on this CPU (an import or plugin failure), or None."""
    try:
        devices = core().available_devices
    except Exception as exc:  # noqa: BLE001 - a broken install: ONNX Runtime takes over under runtime auto
        return f"openvino cannot start: {first_line(exc)}"
    return None if "CPU" in devices else "openvino has no CPU plugin here"


def native_bf16() -> bool:
    """Whether OpenVINO's CPU plugin runs bfloat16 natively here (it lists BF16 only then)."""
    try:
        return "BF16" in core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception:  # noqa: BLE001 - no usable CPU plugin: not native
        return False
