"""``workspace/executeCommand`` commands: re-check on demand and report the server's status."""

from __future__ import annotations

from typing import Any

from faithlint.config import Config
from faithlint.server.feature import Command, Feature

RECHECK_DOCUMENT = "faithlint.recheckDocument"
RECHECK_WORKSPACE = "faithlint.recheckWorkspace"
STATUS = "faithlint.status"


def _uri(arg: Any) -> str | None:
    """Accept a bare URI or ``{"uri": ...}`` (VS Code passes the latter for editor commands)."""
    if isinstance(arg, str):
        return arg
    if isinstance(arg, dict) and isinstance(arg.get("uri"), str):
        return arg["uri"]
    return None


class Commands(Feature):
    """``faithlint.recheckDocument``, ``faithlint.recheckWorkspace`` and ``faithlint.status``."""

    def commands(self) -> list[Command]:
        return [
            Command(RECHECK_DOCUMENT, self.recheck_document),
            Command(RECHECK_WORKSPACE, self.recheck_workspace),
            Command(STATUS, self.status),
        ]

    def recheck_document(self, *args: Any) -> dict[str, Any]:
        uris = [u for u in (_uri(a) for a in args) if u]
        done = [u for u in uris if self.server.schedule(u, 0)]
        return {"scheduled": done, "unknown": [u for u in uris if u not in done]}

    def recheck_workspace(self, *args: Any) -> dict[str, Any]:
        ls = self.server
        ls.settings.invalidate_files()
        ls.models.errors.clear()  # retry models that failed to load (the user may have fixed the path)
        return {"scheduled": [u for u in list(ls.docs) if ls.schedule(u, 0)]}

    def status(self, *args: Any) -> dict[str, Any]:
        """Counters clients and tests read (the e2e tests check that an edit re-scores one sentence)."""
        ls = self.server
        linters = []
        for key, linter in ls.models.linters.items():
            st = linter.stats
            config: Config = ls.models.configs.get(key) or linter.config
            # where the NLI checker runs (openvino, onnx, torch) and at what precision: what a slow editor asks first
            runtime = getattr(linter._checker, "runtime", None)
            linters.append({
                "model": key.model, "device": getattr(linter._checker, "device", None), "relevance": key.relevance.kind,
                "checker": getattr(linter._checker, "name", None),
                "runtime": runtime, "precision": (linter._checker.quantize or "fp32") if runtime else None,
                "unit": config.unit,
                "claims": _claims_status(linter),
                "stats": {"sentencesChecked": st.sentences_checked, "claimsChecked": st.claims_checked,
                          "sentencesRescored": st.sentences_rescored, "pairsScored": st.pairs_scored,
                          "pairCacheHits": st.pair_cache_hits, "draftsChecked": st.drafts_checked,
                          "last": dict(st.last)},
                "caches": linter.cache_sizes(),
                "monitor": _monitor_status(linter, config) if key.monitor is not None else None,
            })
        docs = {uri: {"version": st.checked_version, "complete": bool(st.outcome and not st.outcome.partial),
                      "pairing": st.outcome.pairing_how if st.outcome else None,
                      "diagnostics": len(st.diagnostics),
                      "context": [str(p) for p in st.outcome.context_files.values()] if st.outcome else []}
                for uri, st in ls.docs.items()}
        return {
            "modelsReady": ls.models.ready.is_set(),
            "modelLoadSeconds": ls.models.load_seconds,
            "modelsPreloaded": ls.models.preloaded,
            "modelErrors": list(ls.models.errors.values()),
            "linters": linters,
            "documents": docs,
            "pending": ls.scheduler.pending_count,
            "checksRun": ls.scheduler.runs,
            "checksCancelled": ls.scheduler.cancelled_runs,
            "resultsDelivered": ls.delivered_results,
            "partialResultsDelivered": ls.partial_delivered,
            "lastCheckSeconds": dict(ls.timings),
            # milliseconds per stage of the latest delivered check: prepare (pairing, context), parse (Markdown),
            # split, evidence, checker, rules, results, diagnostics (building and sending them), total
            "lastCheckMs": dict(ls.stage_ms),
            "resultsDropped": ls.dropped_results,
            "debounceMs": ls.debounce_ms,
        }


def _monitor_status(linter: Any, config: Any) -> dict[str, Any]:
    """What the monitor did: sentences the surrogate read (cache misses) and prefixes it had to read."""
    with linter.using(config):
        monitor = linter.monitor
    lm = monitor._lm
    return {"sentencesRead": monitor.sentences_read, "prefixPasses": getattr(lm, "prefix_passes", 0),
            "surrogate": getattr(lm, "name", None)}


def _claims_status(linter: Any) -> dict[str, Any] | None:
    """The claim extractor once one was built (``unit`` claim/both): its name and the sentences it read."""
    units = getattr(linter, "_claims", None)
    if units is None:
        return None
    extractor = units.extractor
    return {"extractor": getattr(extractor, "name", None),
            "generator": getattr(getattr(extractor, "generator", None), "name", None),
            "sentencesExtracted": units.extracted}
