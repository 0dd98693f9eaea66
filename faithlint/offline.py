"""No network: the libraries faithlint loads are told, before they load, not to report usage or look models up.

faithlint checks confidential drafts on machines that may be air-gapped, so none of its code paths may resolve a
name or open a connection beyond this machine. Left alone, its libraries would: ONNX Runtime's telemetry resolves
``mobile.events.data.microsoft.com`` about nine seconds after it loads (a server, a watcher, a monitor run),
OpenVINO's model converter sends an import event to Google Analytics, Ray reports usage statistics, and
transformers / huggingface_hub ask the hub about model ids. :func:`go_offline` runs when the ``faithlint`` package
is first imported, before any of them loads (every command, the language server, Ray workers, the library), and
only fills in settings the user left unset. ``FAITHLINT_ALLOW_DOWNLOADS=1`` lets the hub be asked (a ``--model``
hub id that is not cached yet); telemetry stays off either way. A library imported before ``faithlint`` has read
its settings already: import faithlint first to keep it offline.
"""

from __future__ import annotations

import os
import sys

ALLOW_DOWNLOADS = "FAITHLINT_ALLOW_DOWNLOADS"  # =1: a --model hub id that is not cached may be downloaded

# usage reporting, off always (read when each library loads)
TELEMETRY_OFF = {
    "ORT_DISABLE_TELEMETRY": "1",  # ONNX Runtime's 1DS telemetry (on Linux too, since 1.2x)
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
    "DO_NOT_TRACK": "1",  # the cross-tool convention (huggingface_hub, gradio, ...)
}
# the model hub, asked only with FAITHLINT_ALLOW_DOWNLOADS=1
HUB_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
# OpenVINO's telemetry has no off switch but a consent file in the user's home; without the module, openvino's
# converter falls back to its own no-op stub (openvino.tools.ovc.telemetry_stub)
OPENVINO_TELEMETRY = "openvino_telemetry"


def downloads_allowed() -> bool:
    """Whether a hub model that is not cached may be downloaded (off unless the user says so)."""
    return os.environ.get(ALLOW_DOWNLOADS, "").strip().lower() in ("1", "true", "yes")


def go_offline() -> None:
    """Turn off the telemetry of the libraries faithlint loads and, unless downloads are allowed, their hub look-ups;
    settings the user made are kept. Idempotent."""
    for name, value in TELEMETRY_OFF.items():
        os.environ.setdefault(name, value)
    if not downloads_allowed():
        for name, value in HUB_OFFLINE.items():
            os.environ.setdefault(name, value)
    if OPENVINO_TELEMETRY not in sys.modules:  # already loaded by the host program: its choice
        sys.modules[OPENVINO_TELEMETRY] = None  # type: ignore[assignment]  # its import raises ImportError
