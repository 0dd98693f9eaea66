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

    python training/sweep.py --out training/runs/sweep --final training/runs/sweep/final   # all variants
    python training/sweep.py --out /tmp/s --smoke                                          # CPU check, tiny

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
}


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


def load(data: Path, synth: bool, smoke: bool) -> dict[str, list[dict]]:
    rows3 = read(data / "data3m" / "train.jsonl")
    rows3b = read(data / "data3b" / "train.jsonl")
    probe = [r for r in rows3b if in_probe(r)]
    train = rows3 + [r for r in rows3b if not in_probe(r)]
    if synth:
        train += read(data / "data2" / "train.jsonl")
    seen: set[tuple[str, str]] = set()
    unique = []
    for r in train:  # stage 3b replays stage-3 rows: count each pair once
        key = (r["premise"], r["hypothesis"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    out = {"train": unique, "calib": read(data / "data3m" / "calib.jsonl"), "probe": probe,
           "bags": [b for b in read(data / "data3m" / "bags_train.jsonl") if not b["faithful"]],
           "calib_bags": read(data / "data3m" / "bags_calib.jsonl")}
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
        return res


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
    data = load(args.data, spec.get("synth", False), args.smoke)
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
        best = max(kept, key=lambda h: h["score"]) if kept else None
        if best is m:
            state = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()}
            save_file(state, str(out / "model.tmp"))
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
    bs = spec.get("batch", 32)
    per_epoch = math.ceil(len(enc) / bs)
    total = per_epoch * epochs
    opt = torch.optim.AdamW(param_groups(model, 0.01), lr=spec["lr"], fused=device.type == "cuda")
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
                logits = model(**collate([enc[i] for i in batch], tok.pad_token_id, device)).logits.float()
                loss = loss_fn(logits, torch.tensor([labels[i] for i in batch], device=device))
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


def choose(results: list[dict]) -> tuple[str | None, str]:
    """The variant whose kept epoch (value probe held) scores best on the calibration split."""
    cands = [(h["score"], r["name"], h["epoch"]) for r in results for h in r["history"]
             if r.get("best_epoch") is not None and h["epoch"] == r["best_epoch"]]
    start = next((r["history"][0]["score"] for r in results if r["history"]), float("nan"))
    if not cands:
        return None, "no trained variant kept the value probe within --probe-drop of the shipped model"
    score, name, epoch = max(cands)
    return name, f"{name} at epoch {epoch}: score {score:.4f} (shipped model {start:.4f})"


def split_file(path: Path, dest: Path, part_mb: int = 15) -> list[str]:
    data = path.read_bytes()
    size = part_mb * 1024 * 1024
    names = []
    for i in range(0, len(data), size):
        name = f"best.safetensors.part{i // size}"
        (dest / name).write_bytes(data[i:i + size])
        names.append(name)
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / "training")
    ap.add_argument("--base", type=Path, default=ROOT / "faithlint" / "models" / "default")
    ap.add_argument("--out", type=Path, required=True, help="results (sweep.json, the winner's weights)")
    ap.add_argument("--work", type=Path, default=None, help="per-variant folders (default: OUT/variants)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--minutes", type=float, default=6.0, help="training stops this long after the start")
    ap.add_argument("--max-length", type=int, default=192)
    ap.add_argument("--probe-drop", type=float, default=0.03)
    ap.add_argument("--final", type=Path, default=None,
                    help="also write the winner as a whole model folder here (config, tokenizer, weights)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--smoke", action="store_true", help="48 rows of each kind: a quick check of the whole run")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
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
               "--probe-drop", str(args.probe_drop)] + (["--smoke"] if args.smoke else [])
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
    best, why = choose(results)
    summary = {"choice": best, "why": why, "minutes": round((time.time() - start) / 60, 2), "results": results}
    if best and (work / best / "model.safetensors").exists():
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
                  f"response {h['response_auroc_mean']:.4f} acc {h['calib_acc']:.4f} probe {h['probe_acc']:.4f}")
    print("chosen:", why, flush=True)


if __name__ == "__main__":
    main()
