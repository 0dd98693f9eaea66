"""OpenVINO's one Core per process, and what it says about this CPU (kept apart from the checker class, so
that runtime selection can ask without importing the checker)."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from faithlint.errors import first_line

_CORE_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _core() -> Any:
    import openvino as ov

    return ov.Core()


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
