"""Warm-started fine-tuning sweep of the default checker: several recipes at once, the best kept.

Made for a short GPU lease (everything must come back from one run), and runs on the CPU too
(``--smoke`` for a quick check). Besides the source tree it needs only torch, transformers, safetensors
and scikit-learn, so it runs from a checkout on a machine where faithlint is not installed; the
encoding, batching and optimiser set-up are ``faithlint.train.training``'s. Every variant starts from
the shipped checker (``faithlint/models/default``), trains in its own process on the training rows, is
evaluated after every epoch on the *calibration* split only (contexts never trained on; no development
file is read), and keeps its best epoch. Then the best variant wins by:

- the mean over sets of the sentence AUROC of "not entailed" (1 - P(entailment)) on the stage-3
  calibration rows, and of the response AUROC (1 - the least entailed sentence) on the calibration
  bags (``build_real.py --bags``), weighed alike, which is what the development benchmark measures;
- provided its accuracy on a value probe (value swaps, negations, role swaps and their untouched
  sentences held out by context from the stage-3b rows) stays within ``--probe-drop`` of the
  shipped model's, so that paraphrase tolerance is not bought with missed changed numbers.

Recipes differ in learning rate, epochs, class balance, data and the multiple-instance loss: an
unfaithful multi-sentence output says only that *some* sentence is unsupported, so its least
entailed sentence is pushed towards "not entailed" (-log(1 - min_s P(entailment | s))), which uses
the summaries that the per-sentence rows must skip.

Stage 6 (the ``n*`` and ``d*`` recipes) mixes in the negation minimal pairs of
``training/build_negation.py`` (``data_neg/``; its calibration-context pairs are scored too, per kind):
an epoch must then first catch ``--neg-floor`` of the deleted negations, then the score decides. The
``d*`` recipes distil: every row that is not a negation pair follows the starting checker's own
probabilities (a KL term), so only the negation lesson is new; plain further training on the same rows
cost calibration score by itself (``c2``). They freeze the word embeddings, so ``--send K`` returns the
K best variants at half the bytes (a lease returns at most 64 MiB), and ``--assemble`` rebuilds a model
folder from those parts over ``--base``. ``dp3`` adds the value-rewrite pairs of
``training/build_paraphrase.py`` (``data_para/``; its calibration pairs are scored too: the share of kept
and of changed values judged contradiction).

Students (the ``s*`` recipes, for speed): ``layers`` of the starting checker's six are kept (evenly spaced,
first and last included: 0, 2, 3, 5 of six for four) and every row, the negation pairs too, learns the whole
starting checker's probabilities (``all_soft``). Their weights carry their layer count in the safetensors
metadata, so ``--assemble`` drops the base's further layers and writes the config to match.

    python training/sweep.py --out training/runs/sweep --final training/runs/sweep/final   # all variants
    python training/sweep.py --out /tmp/s --smoke                                          # CPU check, tiny
    python training/sweep.py --out OUT --variants d3 --base STAGE5 --send 1               # stage 6
    python training/sweep.py --assemble OUT/d3.safetensors.part* --base STAGE5 --final training/runs/neg/final
    python training/sweep.py --out OUT --variants dp3 --base STAGE6 --send 1              # stage 7
    python training/sweep.py --out OUT --variants s4e6,s3e6 --base STAGE7 --send 2        # students (not shipped)

Writes ``sweep.json`` (every variant's per-epoch metrics and the choice), ``sweep.log`` and the
winner's weights as fp16 safetensors, split into ``best.safetensors.partN`` of at most 15 MiB (join
them with ``cat``), plus its config and tokenizer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from faithlint.train.training import (  # noqa: E402
    LABELS,
    autocast,
    class_weights,
    collate,
    encode_pairs,
    length_batches,
    param_groups,
)

PROBE_SOURCES = ("numswap", "swap_", "negation", "role_swap", "antonym", "minimal_pair")
_STUDENT = {"synth": True, "neg": True, "freeze_emb": True, "distill": 1.0, "all_soft": True}
VARIANTS: dict[str, dict[str, Any]] = {
    "base": {"epochs": 0},
    "r2": {"lr": 2e-5, "epochs": 3},
    "r3": {"lr": 3e-5, "epochs": 4},
    "m2": {"lr": 2e-5, "epochs": 3, "mil": 0.5},
    "m3": {"lr": 3e-5, "epochs": 4, "mil": 1.0},
    "m3s": {"lr": 3e-5, "epochs": 3, "mil": 0.5, "synth": True},
    "m1q": {"lr": 1e-5, "epochs": 4, "mil": 0.5, "balance": "sqrt"},
    "m5": {"lr": 5e-5, "epochs": 3, "mil": 1.0},
    "r3e8": {"lr": 3e-5, "epochs": 8},
    "r5e6": {"lr": 5e-5, "epochs": 6},
    "m3e8": {"lr": 3e-5, "epochs": 8, "mil": 0.3},
    "r3s": {"lr": 3e-5, "epochs": 5, "synth": True},
    "r6b64": {"lr": 6e-5, "epochs": 8, "batch": 64},
    # from the shipped checker (stage 5's r3s): its recipe again, with the negation minimal pairs of
    # training/build_negation.py mixed in (``neg``; ``neg_copies`` times), word embeddings frozen
    "c2": {"lr": 2e-5, "epochs": 2, "synth": True, "freeze_emb": True},
    "n1": {"lr": 1e-5, "epochs": 3, "synth": True, "neg": True, "freeze_emb": True},
    "n2": {"lr": 2e-5, "epochs": 3, "synth": True, "neg": True, "freeze_emb": True},
    "n2x": {"lr": 2e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 2, "freeze_emb": True},
    "n3x": {"lr": 3e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 2, "freeze_emb": True},
    "n1x": {"lr": 1e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 3, "freeze_emb": True},
    # the same, but every row that is not a negation pair follows the shipped checker's probabilities
    # (``distill``: the weight of that KL term; the rest on its label), so only the negation lesson is new
    "d2": {"lr": 2e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 2, "freeze_emb": True, "distill": 1.0},
    "d3": {"lr": 3e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 2, "freeze_emb": True, "distill": 1.0},
    "d3x": {"lr": 3e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 3, "freeze_emb": True,
            "distill": 1.0},
    "d2h": {"lr": 2e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 2, "freeze_emb": True,
            "distill": 0.5},
    "d5": {"lr": 5e-5, "epochs": 2, "synth": True, "neg": True, "neg_copies": 2, "freeze_emb": True, "distill": 1.0},
    # d3 with the value-rewrite pairs of training/build_paraphrase.py too (``para``; ``para_copies`` times)
    "dp3": {"lr": 3e-5, "epochs": 3, "synth": True, "neg": True, "neg_copies": 2, "para": True, "para_copies": 2,
            "freeze_emb": True, "distill": 1.0},
    # students for speed (issue 15): ``layers`` of the shipped checker's six kept (evenly spaced, the last
    # included), every row distilled from the whole shipped checker, which already knows the negation pairs
    "s3": _STUDENT | {"lr": 1e-4, "epochs": 4, "layers": 3},
    "s4": _STUDENT | {"lr": 1e-4, "epochs": 4, "layers": 4},
    "s4e6": _STUDENT | {"lr": 1e-4, "epochs": 6, "layers": 4},
    "s3e6": _STUDENT | {"lr": 1e-4, "epochs": 6, "layers": 3},
    "s4l": _STUDENT | {"lr": 5e-5, "epochs": 4, "layers": 4},
}
HARD = ("neg_", "para_")  # sources of the targeted pairs: they learn their labels, the rest is distilled
NEG_SOURCES = ("neg_plain_copy", "neg_negated_copy", "neg_removed", "neg_added")
FROZEN = "bert.embeddings.word_embeddings.weight"  # 11.7M of the 22.7M weights: not sent back when frozen


def read(path: Path) -> list[dict]:
    """JSON lines from ``path`` or ``path.xz``; empty when neither exists."""
    if path.exists():
        return [json.loads(x) for x in path.open(encoding="utf-8") if x.strip()]
    xz = path.with_name(path.name + ".xz")
    if xz.exists():
        with lzma.open(xz, "rt", encoding="utf-8") as f:
            return [json.loads(x) for x in f if x.strip()]
    return []


def in_probe(row: dict) -> bool:
    """Value-probe rows: synthetic value/negation/role changes, a sixth of their contexts."""
    if not str(row.get("source", "")).startswith(PROBE_SOURCES):
        return False
    return int(hashlib.sha1(str(row.get("doc_id", row["premise"])).encode()).hexdigest(), 16) % 6 == 0


def load(data: Path, synth: bool, smoke: bool, neg: int = 0, para: int = 0) -> dict[str, list[dict]]:
    rows3 = read(data / "data3m" / "train.jsonl")
    rows3b = read(data / "data3b" / "train.jsonl")
    probe = [r for r in rows3b if in_probe(r)]
    train = rows3 + [r for r in rows3b if not in_probe(r)]
    if synth:
        train += read(data / "data2" / "train.jsonl")
    negs = [r for r in read(data / "data_neg" / "train.jsonl") if r.get("source", "").startswith("neg_")]
    paras = [r for r in read(data / "data_para" / "train.jsonl") if r.get("source", "").startswith("para_")]
    seen: set[tuple[str, str]] = set()
    unique = []
    for r in train:  # stage 3b replays stage-3 rows: count each pair once
        key = (r["premise"], r["hypothesis"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    unique += negs * neg + paras * para  # the targeted pairs, each set so many times (outside the de-duplication)
    out = {"train": unique, "calib": read(data / "data3m" / "calib.jsonl"), "probe": probe,
           "bags": [b for b in read(data / "data3m" / "bags_train.jsonl") if not b["faithful"]],
           "calib_bags": read(data / "data3m" / "bags_calib.jsonl"),
           "neg_probe": read(data / "data_neg" / "calib.jsonl"), "para_probe": read(data / "data_para" / "calib.jsonl")}
    if smoke:
        out = {k: random.Random(k).sample(v, min(len(v), 48)) for k, v in out.items()}
    return out


def probs(model: Any, enc: list, pad_id: int, device: Any, batch: int = 256) -> Any:
    import numpy as np
    import torch

    order = sorted(range(len(enc)), key=lambda i: len(enc[i]["input_ids"]))
    out = np.zeros((len(enc), 3), dtype=np.float32)
    model.eval()
    with torch.inference_mode(), autocast(device):
        for b in range(0, len(order), batch):
            ids = order[b:b + batch]
            logits = model(**collate([enc[i] for i in ids], pad_id, device)).logits
            out[ids] = logits.float().softmax(-1).cpu().numpy()
    model.train()
    return out


def auroc_by_source(sources: list[str], bad: list[bool], score: list[float]) -> dict[str, float]:
    from sklearn.metrics import roc_auc_score

    out = {}
    for s in sorted(set(sources)):
        idx = [i for i, x in enumerate(sources) if x == s]
        y = [bad[i] for i in idx]
        if 0 < sum(y) < len(y):
            out[s] = round(float(roc_auc_score(y, [score[i] for i in idx])), 4)
    return out


class Evaluator:
    """Calibration metrics of one model state (all on the calibration split and the value probe)."""

    def __init__(self, tok: Any, data: dict[str, list[dict]], max_length: int) -> None:
        self.calib = data["calib"]
        self.pad_id = tok.pad_token_id
        self.enc_calib = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in self.calib], max_length)
        self.probe = data["probe"]
        self.enc_probe = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in self.probe], max_length)
        self.bags = data["calib_bags"]
        flat = [(p["premise"], p["hypothesis"]) for b in self.bags for p in b["pairs"]]
        self.enc_bags = encode_pairs(tok, flat, max_length)
        self.neg = data.get("neg_probe", [])
        self.enc_neg = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in self.neg], max_length)
        self.para = data.get("para_probe", [])
        self.enc_para = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in self.para], max_length)

    def __call__(self, model: Any, device: Any) -> dict:
        import numpy as np

        res: dict[str, Any] = {}
        p = probs(model, self.enc_calib, self.pad_id, device)
        sent = auroc_by_source([r["source"] for r in self.calib], [r["label"] != "entailment" for r in self.calib],
                               list(1 - p[:, 0]))
        res["sentence_auroc"] = sent
        res["sentence_auroc_mean"] = round(float(np.mean(list(sent.values()))), 4) if sent else 0.0
        y = np.array([LABELS.index(r["label"]) for r in self.calib])
        res["calib_acc"] = round(float((p.argmax(1) == y).mean()), 4) if len(y) else 0.0
        pb = probs(model, self.enc_bags, self.pad_id, device)
        k, scores = 0, []
        for b in self.bags:  # a sentence: its best premise; an output: its least entailed sentence
            best: dict[int, float] = {}
            for pair in b["pairs"]:
                best[pair["sentence"]] = max(best.get(pair["sentence"], 0.0), float(pb[k, 0]))
                k += 1
            scores.append(1 - min(best.values()))
        resp = auroc_by_source([b["source"] for b in self.bags], [not b["faithful"] for b in self.bags], scores)
        res["response_auroc"] = resp
        res["response_auroc_mean"] = round(float(np.mean(list(resp.values()))), 4) if resp else 0.0
        pp = probs(model, self.enc_probe, self.pad_id, device)
        yp = np.array([r["label"] == "entailment" for r in self.probe])
        res["probe_acc"] = round(float(((pp[:, 0] >= 0.5) == yp).mean()), 4) if len(yp) else 0.0
        res["score"] = round((res["sentence_auroc_mean"] + res["response_auroc_mean"]) / 2, 4)
        if self.neg:  # negation pairs of calibration contexts: share judged contradiction, per kind
            pn = probs(model, self.enc_neg, self.pad_id, device)
            said = pn.argmax(1) == LABELS.index("contradiction")
            res["neg_contradiction"] = {k: round(float(np.mean([said[i] for i, r in enumerate(self.neg)
                                                                   if r["source"] == k])), 4)
                                        for k in NEG_SOURCES if any(r["source"] == k for r in self.neg)}
            right = [said[i] == (r["label"] == "contradiction") for i, r in enumerate(self.neg)]
            res["neg_acc"] = round(float(np.mean(right)), 4)
        if self.para:  # value rewrites of calibration contexts: judged contradiction, kept values vs changed
            pp = probs(model, self.enc_para, self.pad_id, device)
            said = pp.argmax(1) == LABELS.index("contradiction")
            res["para_contradiction"] = {
                group: round(float(np.mean([said[i] for i, r in enumerate(self.para) if r["label"] == label])), 4)
                for group, label in (("kept", "entailment"), ("changed", "contradiction"))
                if any(r["label"] == label for r in self.para)}
        return res


def kept_layers(total: int, n: int) -> list[int]:
    """Which of ``total`` encoder layers a student of ``n`` keeps: evenly spaced, first and last included."""
    if not 1 <= n <= total:
        raise ValueError(f"a student keeps 1 to {total} layers, not {n}")
    return sorted({round(i * (total - 1) / max(n - 1, 1)) for i in range(n)}) if n > 1 else [total - 1]


def truncate(model: Any, n: int) -> Any:
    """``model`` (a BERT classifier) cut to ``n`` of its encoder layers, its config saying so."""
    import torch

    layers = model.bert.encoder.layer
    keep = kept_layers(len(layers), n)
    model.bert.encoder.layer = torch.nn.ModuleList([layers[i] for i in keep])
    model.config.num_hidden_layers = n
    return model


def distilled_loss(logits: Any, teacher: Any, y: Any, hard: Any, alpha: float, weight: Any) -> Any:
    """Rows marked ``hard`` (the new lesson) learn their labels; the others follow the starting model's
    probabilities (weight ``alpha``, ``1 - alpha`` on their labels), so what it knew elsewhere stays."""
    import torch
    import torch.nn.functional as F

    ce = F.cross_entropy(logits, y, weight=weight, reduction="none")
    kl = F.kl_div(F.log_softmax(logits, -1), F.log_softmax(teacher, -1), log_target=True,
                  reduction="none").sum(-1)
    return torch.where(hard, ce, alpha * kl + (1 - alpha) * ce).mean()


def worker(name: str, spec: dict, args: argparse.Namespace) -> None:
    import numpy as np
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

    out = args.out / name
    out.mkdir(parents=True, exist_ok=True)
    deadline = args.deadline
    log = (out / "log.txt").open("a")

    def say(msg: str) -> None:
        log.write(f"{time.strftime('%H:%M:%S')} {name} {msg}\n")
        log.flush()

    seed = args.seed
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    tok = AutoTokenizer.from_pretrained(args.base)
    model = AutoModelForSequenceClassification.from_pretrained(args.base, dtype=torch.float32).to(device)
    if spec.get("layers"):
        truncate(model, spec["layers"])
    data = load(args.data, spec.get("synth", False), args.smoke, spec.get("neg_copies", 1) if spec.get("neg") else 0,
                spec.get("para_copies", 1) if spec.get("para") else 0)
    evaluate = Evaluator(tok, data, args.max_length)
    history: list[dict] = []
    result = {"name": name, "spec": spec, "history": history, "device": str(device)}

    def record(epoch: float) -> None:
        t = time.time()
        m = evaluate(model, device)
        m["epoch"] = epoch
        m["eval_s"] = round(time.time() - t, 1)
        history.append(m)
        say(json.dumps(m))
        floor = history[0]["probe_acc"] - args.probe_drop  # the starting (shipped) model's, less the slack
        kept = [h for h in history if h["epoch"] > 0 and h["probe_acc"] >= floor]
        best = max(kept, key=lambda h: rank_key(h, args.neg_floor)) if kept else None
        if best is m:
            state = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()}
            save_file(state, str(out / "model.tmp"), metadata=layers_note(model))
            os.replace(out / "model.tmp", out / "model.safetensors")
        result["best_epoch"] = best["epoch"] if best else None
        result["probe_floor"] = round(floor, 4)
        (out / "result.json").write_text(json.dumps(result, indent=1))

    record(0)
    epochs = spec.get("epochs", 0)
    if not epochs:
        return
    rows = data["train"]
    enc = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in rows], args.max_length)
    labels = [LABELS.index(r["label"]) for r in rows]
    counts, w = class_weights(labels, spec.get("balance", "inverse"))
    loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float, device=device))
    bags = data["bags"] if spec.get("mil") else []
    bag_enc = [(encode_pairs(tok, [(p["premise"], p["hypothesis"]) for p in b["pairs"]], args.max_length),
                [p["sentence"] for p in b["pairs"]]) for b in bags]
    teacher = None
    if spec.get("distill") is not None:
        teacher = AutoModelForSequenceClassification.from_pretrained(args.base, dtype=torch.float32).to(device).eval()
        teacher.requires_grad_(False)
    hard = torch.tensor([not spec.get("all_soft") and str(r.get("source", "")).startswith(HARD) for r in rows],
                        device=device)
    bs = spec.get("batch", 32)
    per_epoch = math.ceil(len(enc) / bs)
    total = per_epoch * epochs
    if spec.get("freeze_emb"):
        model.get_parameter(FROZEN).requires_grad_(False)
    groups = [{**g, "params": [p for p in g["params"] if p.requires_grad]} for g in param_groups(model, 0.01)]
    opt = torch.optim.AdamW(groups, lr=spec["lr"], fused=device.type == "cuda")
    sched = get_linear_schedule_with_warmup(opt, int(0.06 * total), total)
    rng = random.Random(seed)
    say(f"rows {len(enc)} labels {counts.tolist()} bags {len(bag_enc)} steps {total} device {device}")
    model.train()
    step, bag_i = 0, 0
    bag_order = list(range(len(bag_enc)))
    rng.shuffle(bag_order)
    lengths = [len(e["input_ids"]) for e in enc]
    for _ in range(epochs):
        for batch in length_batches(len(enc), lengths, bs, rng):
            with autocast(device):
                feats = collate([enc[i] for i in batch], tok.pad_token_id, device)
                logits = model(**feats).logits.float()
                y = torch.tensor([labels[i] for i in batch], device=device)
                if teacher is None:
                    loss = loss_fn(logits, y)
                else:
                    with torch.no_grad():
                        t = teacher(**feats).logits.float()
                    loss = distilled_loss(logits, t, y, hard[batch], spec["distill"], loss_fn.weight)
                if bag_enc:
                    take = [bag_enc[bag_order[(bag_i + j) % len(bag_order)]] for j in range(spec.get("bags", 8))]
                    bag_i += len(take)
                    flat = [x for e, _ in take for x in e]
                    pe = model(**collate(flat, tok.pad_token_id, device)).logits.float().softmax(-1)[:, 0]
                    k, mil = 0, []
                    for e, sents in take:
                        part = pe[k:k + len(e)]
                        k += len(e)
                        per_sent = [part[[i for i, s in enumerate(sents) if s == u]].max() for u in sorted(set(sents))]
                        mil.append(-torch.log1p(-torch.stack(per_sent).min().clamp(max=1 - 1e-4)))
                    loss = loss + spec["mil"] * torch.stack(mil).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            if step % 100 == 0:
                say(f"step {step}/{total} loss {loss.item():.4f}")
            if time.time() > deadline:
                break
        record(round(step / per_epoch, 2))
        if time.time() > deadline:
            say(f"deadline reached at step {step}")
            result["stopped_early"] = step
            (out / "result.json").write_text(json.dumps(result, indent=1))
            break


def rank_key(h: dict, neg_floor: float) -> tuple[bool, float]:
    """An epoch's rank: first whether it catches ``neg_floor`` of the deleted negations of the calibration
    contexts (where those were read), then the score; a variant of which no epoch does keeps its best score."""
    return (h.get("neg_contradiction", {}).get("neg_removed", 1.0) >= neg_floor, h["score"])


def _kept(results: list[dict], neg_floor: float) -> list[tuple[bool, float, str, float]]:
    """(rank key..., name, epoch) of each variant's kept epoch (value probe held), best first."""
    return sorted(((*rank_key(h, neg_floor), r["name"], h["epoch"]) for r in results for h in r["history"]
                   if r.get("best_epoch") is not None and h["epoch"] == r["best_epoch"]), reverse=True)


def choose(results: list[dict], neg_floor: float = 0.0) -> tuple[str | None, str]:
    """The variant whose kept epoch (value probe held) ranks first by :func:`rank_key`."""
    cands = _kept(results, neg_floor)
    start = next((r["history"][0]["score"] for r in results if r["history"]), float("nan"))
    if not cands:
        return None, "no trained variant kept the value probe within --probe-drop of the shipped model"
    _, score, name, epoch = cands[0]
    return name, f"{name} at epoch {epoch}: score {score:.4f} (shipped model {start:.4f})"


def ranked(results: list[dict], neg_floor: float) -> list[str]:
    """Variants with a kept epoch, best first (the order ``choose`` uses)."""
    return [name for _, _, name, _ in _kept(results, neg_floor)]


def layers_note(model: Any) -> dict[str, str]:
    """Safetensors metadata saying how many encoder layers the weights have (a student's differ from the base's)."""
    return {"format": "pt", "num_hidden_layers": str(model.config.num_hidden_layers)}


def saved_layers(path: Path) -> int | None:
    from safetensors import safe_open

    with safe_open(str(path), "pt") as f:
        n = (f.metadata() or {}).get("num_hidden_layers")
    return int(n) if n else None


def compact(path: Path, dest: Path) -> Path:
    """The weights without the frozen word embeddings (equal to the base's): half the bytes to send back."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    with safe_open(str(path), "pt") as f:  # its metadata (a student's layer count) goes along
        save_file({k: f.get_tensor(k) for k in f.keys() if k != FROZEN}, str(dest), metadata=f.metadata())
    return dest


def assemble(parts: list[Path], base: Path, final: Path) -> None:
    """A whole model folder from sent-back parts (joined in order) over ``base``'s weights and files.

    A student's weights say in their metadata how many layers it has: the base's further layers are dropped
    and the config says so."""
    import tempfile

    from safetensors.torch import load_file, save_file

    with tempfile.TemporaryDirectory() as tmp:
        joined = Path(tmp) / "joined.safetensors"
        joined.write_bytes(b"".join(p.read_bytes() for p in parts))
        state = load_file(str(base / "model.safetensors"))
        try:
            new = load_file(str(joined))
        except Exception as e:  # a part missing, out of order or cut short
            sys.exit(f"sweep: {', '.join(map(str, parts))}: not one safetensors file when joined in this order ({e})")
        unknown = sorted(set(new) - set(state))
        if unknown:
            sys.exit(f"sweep: {parts[0]}: weights the base lacks: {', '.join(unknown[:3])}")
        state.update(new)
        final.mkdir(parents=True, exist_ok=True)
        for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
            shutil.copy(base / name, final / name)
        layers = saved_layers(joined)
        base_config = json.loads((base / "config.json").read_text())
        if layers is not None and layers != base_config["num_hidden_layers"]:
            state = {k: v for k, v in state.items()
                     if not k.startswith("bert.encoder.layer.") or int(k.split(".")[3]) < layers}
            (final / "config.json").write_text(json.dumps(base_config | {"num_hidden_layers": layers}, indent=2) + "\n")
        save_file({k: v.contiguous() for k, v in state.items()}, str(final / "model.safetensors"),
                  metadata={"format": "pt"})


def split_file(path: Path, dest: Path, part_mb: int = 15, stem: str = "best") -> list[str]:
    data = path.read_bytes()
    size = part_mb * 1024 * 1024
    names = []
    for i in range(0, len(data), size):
        name = f"{stem}.safetensors.part{i // size}"
        (dest / name).write_bytes(data[i:i + size])
        names.append(name)
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / "training")
    ap.add_argument("--base", type=Path, default=ROOT / "training" / "checker")
    ap.add_argument("--out", type=Path, default=None, help="results (sweep.json, the winner's weights); required")
    ap.add_argument("--work", type=Path, default=None, help="per-variant folders (default: OUT/variants)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--minutes", type=float, default=6.0, help="training stops this long after the start")
    ap.add_argument("--max-length", type=int, default=192)
    ap.add_argument("--probe-drop", type=float, default=0.03)
    ap.add_argument("--final", type=Path, default=None,
                    help="also write the winner as a whole model folder here (config, tokenizer, weights)")
    ap.add_argument("--neg-floor", type=float, default=0.5,
                    help="share of deleted negations a variant trained on negation pairs must catch")
    ap.add_argument("--send", type=int, default=0,
                    help="instead of the winner's whole weights, write the K best variants' weights without "
                         "the frozen word embeddings (NAME.safetensors.partN; rebuild with --assemble)")
    ap.add_argument("--assemble", nargs="+", type=Path, default=None, metavar="PART",
                    help="join these sent-back parts over --base into the model folder --final, and stop")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--smoke", action="store_true", help="48 rows of each kind: a quick check of the whole run")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.assemble:
        if not args.final:
            sys.exit("sweep: --assemble needs --final (the model folder to write)")
        assemble(args.assemble, args.base, args.final)
        return
    if args.out is None and not args.worker:
        ap.error("--out is required (or --assemble PART... --final DIR)")
    if args.worker:
        args.out = args.work
        worker(args.worker, VARIANTS[args.worker] | ({"epochs": min(VARIANTS[args.worker].get("epochs", 0), 1)}
                                                      if args.smoke else {}), args)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.work or args.out / "variants"
    start = time.time()
    deadline = start + args.minutes * 60
    names = [n.strip() for n in args.variants.split(",") if n.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"sweep: unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="2")
    procs = {}
    for n in names:
        cmd = [sys.executable, __file__, "--worker", n, "--work", str(work), "--data", str(args.data),
               "--base", str(args.base), "--deadline", str(deadline), "--max-length", str(args.max_length),
               "--seed", str(args.seed), "--out", str(args.out),
               "--probe-drop", str(args.probe_drop), "--neg-floor", str(args.neg_floor)]
        cmd += ["--smoke"] if args.smoke else []
        (work / n).mkdir(parents=True, exist_ok=True)
        procs[n] = subprocess.Popen(cmd, env=env, stdout=(work / n / "stdout.txt").open("w"),
                                    stderr=subprocess.STDOUT)
    hard = deadline + 120  # the last epoch's evaluation and save
    for p in procs.values():
        try:
            p.wait(timeout=max(hard - time.time(), 1))
        except subprocess.TimeoutExpired:
            p.kill()
    results, log = [], []
    for n in names:
        f = work / n / "result.json"
        if f.exists():
            results.append(json.loads(f.read_text()))
        for g in ("log.txt", "stdout.txt"):
            if (work / n / g).exists():
                log.append(f"== {n} {g} (exit {procs[n].returncode})\n" + (work / n / g).read_text()[-20000:])
    (args.out / "sweep.log").write_text("\n".join(log))
    best, why = choose(results, args.neg_floor)
    summary = {"choice": best, "why": why, "minutes": round((time.time() - start) / 60, 2), "results": results}
    if args.send:
        sent = {}
        for name in ranked(results, args.neg_floor)[:args.send]:
            src = work / name / "model.safetensors"
            if src.exists() and VARIANTS[name].get("freeze_emb"):
                sent[name] = split_file(compact(src, work / name / "compact.safetensors"), args.out, stem=name)
            elif src.exists():
                sent[name] = split_file(src, args.out, stem=name)
        summary["sent"] = sent
    elif best and (work / best / "model.safetensors").exists():
        summary["parts"] = split_file(work / best / "model.safetensors", args.out)
        if args.final:
            args.final.mkdir(parents=True, exist_ok=True)
            for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
                shutil.copy(args.base / name, args.final / name)
            shutil.copy(work / best / "model.safetensors", args.final / "model.safetensors")
    (args.out / "sweep.json").write_text(json.dumps(summary, indent=1))
    for r in results:
        for h in r["history"]:
            print(f"{r['name']:5} epoch {h['epoch']:5} score {h['score']:.4f} sentence {h['sentence_auroc_mean']:.4f} "
                  f"response {h['response_auroc_mean']:.4f} acc {h['calib_acc']:.4f} probe {h['probe_acc']:.4f} "
                  f"neg {h.get('neg_acc', float('nan')):.4f} {h.get('neg_contradiction', {})} "
                  f"para {h.get('para_contradiction', {})}")
    print("chosen:", why, flush=True)


if __name__ == "__main__":
    main()
