"""Fine-tune a 3-way (entailment/neutral/contradiction) cross-encoder, on CPU or a CUDA GPU.

Used by ``training/train.py`` (the shipped model) and ``faithlint train`` (a
user's domain data). Checkpoints every ``save_every`` steps hold the model,
optimiser, scheduler, data order and RNG state, so an interrupted run resumes
exactly where it stopped; with the same seed and data the run is reproducible. On a GPU
(``device = "auto"`` finds one) the forward pass runs under bf16 autocast with fp32 master weights.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

LABELS = ("entailment", "neutral", "contradiction")


@dataclass
class TrainConfig:
    epochs: float = 2.0
    lr: float = 6e-5
    batch_size: int = 32
    max_length: int = 192
    warmup: float = 0.06
    weight_decay: float = 0.01
    seed: int = 13
    save_every: int = 200
    class_balance: str = "inverse"  # inverse | sqrt | none
    max_minutes: float | None = None
    device: str = "auto"  # auto (a CUDA GPU when torch sees one) | cpu | cuda | cuda:N


def torch_device(name: str) -> Any:
    """The torch device for ``name``; a CUDA device torch cannot see is a one-line InputError."""
    import torch

    from faithlint.errors import InputError

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise InputError(f"device {name!r}: not a torch device (use auto, cpu, cuda or cuda:N)") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {name!r}: torch {torch.__version__} sees no CUDA GPU (use --device cpu or auto)")
    if device.type not in ("cpu", "cuda"):
        raise InputError(f"device {name!r}: only cpu and cuda are supported")
    return device


def _log(msg: str, log_file: Path | None) -> None:
    line = time.strftime("%H:%M:%S ") + msg
    print(line, file=sys.stderr, flush=True)
    if log_file:
        with log_file.open("a") as f:
            f.write(line + "\n")


def encode_pairs(tok: Any, pairs: Sequence[tuple[str, str]], max_length: int) -> list[dict]:
    """Ids as the checker sees them: premise truncated first; a hypothesis too long alone keeps its head.

    Such a hypothesis is cut to its head (with a few tokens' margin) before pairing, since tokenizers
    refuses ``only_first`` for the whole batch when one hypothesis alone exceeds ``max_length``.
    """
    if not pairs:  # tokenizers fails on an empty batch
        return []
    hyps = [h for _, h in pairs]
    room = max_length - tok.num_special_tokens_to_add(pair=True) - 8
    alone = tok(hyps, add_special_tokens=False, return_offsets_mapping=True)
    for i, offsets in enumerate(alone["offset_mapping"]):
        if len(offsets) > room:
            hyps[i] = hyps[i][:offsets[room - 1][1]]
    enc = tok([p for p, _ in pairs], hyps, truncation="only_first", max_length=max_length)
    out = []
    for i in range(len(pairs)):
        ids = enc["input_ids"][i]
        if len(ids) > max_length:  # the cut head re-tokenised longer: keep its head
            ids = ids[:max_length - 1] + [tok.sep_token_id]
        tt = enc["token_type_ids"][i][:len(ids)] if "token_type_ids" in enc else None
        out.append({"input_ids": ids, "token_type_ids": tt})
    return out


def _encode(tok: Any, rows: Sequence[dict], max_length: int) -> list[dict]:
    """:func:`encode_pairs` of labelled rows, each with its label's index."""
    out = encode_pairs(tok, [(r["premise"], r["hypothesis"]) for r in rows], max_length)
    for item, r in zip(out, rows):
        item["label"] = LABELS.index(r["label"])
    return out


def length_batches(n_items: int, lengths: list[int], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Length-bucketed batches: little padding, still shuffled."""
    idx = list(range(n_items))
    rng.shuffle(idx)
    chunk = batch_size * 50
    batches = []
    for c in range(0, n_items, chunk):
        part = sorted(idx[c:c + chunk], key=lambda i: lengths[i])
        batches.extend(part[b:b + batch_size] for b in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def collate(items: list[dict], pad_id: int, device: Any = None) -> dict:
    """Padded tensors of encoded items (with ``labels`` when the items have labels), on ``device`` if given."""
    import torch

    n = max(len(x["input_ids"]) for x in items)
    ids = torch.full((len(items), n), pad_id, dtype=torch.long)
    tt = torch.zeros((len(items), n), dtype=torch.long)
    am = torch.zeros((len(items), n), dtype=torch.long)
    for i, x in enumerate(items):
        L = len(x["input_ids"])
        ids[i, :L] = torch.tensor(x["input_ids"])
        am[i, :L] = 1
        if x["token_type_ids"] is not None:
            tt[i, :L] = torch.tensor(x["token_type_ids"])
    out = {"input_ids": ids, "attention_mask": am, "token_type_ids": tt}
    if "label" in items[0]:
        out["labels"] = torch.tensor([x["label"] for x in items])
    return {k: v.to(device) for k, v in out.items()} if device is not None else out


def autocast(device: Any) -> Any:
    """bf16 autocast on a GPU; nothing on the CPU (its bf16 is the ``bf16`` flag of :func:`predict`)."""
    import torch

    return torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda")


def predict(model: Any, tok: Any, rows: Sequence[dict], max_length: int, batch_size: int = 64,
            bf16: bool = False) -> Any:
    """Logits (N, 3) in LABELS order for premise/hypothesis rows (``bf16``: as the checker runs bf16)."""
    import torch

    from faithlint.models.checkers.nli import precision_context

    enc = _encode(tok, rows, max_length)
    order = sorted(range(len(enc)), key=lambda i: len(enc[i]["input_ids"]))
    out = torch.zeros((len(enc), 3))
    device = next(model.parameters()).device
    model.eval()
    with torch.inference_mode():
        for b in range(0, len(order), batch_size):
            ids = order[b:b + batch_size]
            batch = collate([enc[i] for i in ids], tok.pad_token_id, device)
            batch.pop("labels")
            with precision_context(bf16 and device.type == "cpu"), autocast(device):
                out[ids] = model(**batch).logits.float().cpu()
    return out


def class_weights(labels: Sequence[int], balance: str) -> tuple[Any, Any]:
    """(label counts, loss weights): ``inverse`` frequency, its ``sqrt``, or ``none`` (all 1)."""
    import numpy as np

    counts = np.bincount(labels, minlength=3).astype(float)
    if balance == "inverse":
        return counts, counts.sum() / (3 * np.maximum(counts, 1))
    if balance == "sqrt":
        return counts, np.sqrt(counts.sum() / (3 * np.maximum(counts, 1)))
    return counts, np.ones(3)


def param_groups(model: Any, weight_decay: float) -> list[dict]:
    """AdamW parameter groups: no weight decay on biases and LayerNorm weights."""
    no_decay = ("bias", "LayerNorm.weight")
    named = list(model.named_parameters())
    return [{"params": [p for n, p in named if not any(k in n for k in no_decay)], "weight_decay": weight_decay},
            {"params": [p for n, p in named if any(k in n for k in no_decay)], "weight_decay": 0.0}]


def train(train_rows: Sequence[dict], calib_rows: Sequence[dict], base: str, out_dir: Path,
          cfg: TrainConfig) -> Path:
    """Train and return the directory of the final Hugging Face model."""
    import numpy as np
    import torch
    from transformers import AutoTokenizer, get_linear_schedule_with_warmup

    from faithlint.models.checkers.graph_weights import from_pretrained

    device = torch_device(cfg.device)
    out_dir.mkdir(parents=True, exist_ok=True)
    log_file = out_dir / "train.log"
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    tok = AutoTokenizer.from_pretrained(base)
    model = from_pretrained(  # the bundled checker's weights are its int8 graph's (graph_weights)
        base, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={k: i for i, k in enumerate(LABELS)},
        ignore_mismatched_sizes=True, dtype=torch.float32).to(device)  # the shipped model is stored in fp16
    data = _encode(tok, train_rows, cfg.max_length)
    lengths = [len(x["input_ids"]) for x in data]
    counts, weights = class_weights([x["label"] for x in data], cfg.class_balance)
    loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(weights, dtype=torch.float, device=device))
    steps_per_epoch = math.ceil(len(data) / cfg.batch_size)
    total_steps = int(steps_per_epoch * cfg.epochs)
    opt = torch.optim.AdamW(param_groups(model, cfg.weight_decay), lr=cfg.lr)
    sched = get_linear_schedule_with_warmup(opt, int(cfg.warmup * total_steps), total_steps)
    step = 0
    ckpt = out_dir / "checkpoint.pt"
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        step = state["step"]
        torch.set_rng_state(state["torch_rng"])
        _log(f"resumed from step {step}", log_file)
    _log(f"device {device}; train rows {len(data)} labels {counts.tolist()} weights {np.round(weights, 3).tolist()} "
         f"steps {total_steps} config {json.dumps(asdict(cfg))}", log_file)
    start = time.time()
    running = 0.0
    model.train()
    while step < total_steps:
        epoch = step // steps_per_epoch
        order = length_batches(len(data), lengths, cfg.batch_size, random.Random(cfg.seed * 1000 + epoch))
        for bi in range(step % steps_per_epoch, len(order)):
            if step >= total_steps:
                break
            batch = collate([data[i] for i in order[bi]], tok.pad_token_id, device)
            labels = batch.pop("labels")
            with autocast(device):
                loss = loss_fn(model(**batch).logits.float(), labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
            if step % 50 == 0:
                rate = (time.time() - start) / 60
                _log(f"step {step}/{total_steps} epoch {epoch} loss {running:.4f} lr {sched.get_last_lr()[0]:.2e} "
                     f"elapsed {rate:.1f} min", log_file)
            if step % cfg.save_every == 0 or step == total_steps:
                tmp = ckpt.with_suffix(".tmp")
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                            "scheduler": sched.state_dict(), "step": step,
                            "torch_rng": torch.get_rng_state()}, tmp)
                os.replace(tmp, ckpt)
            if cfg.max_minutes and (time.time() - start) / 60 > cfg.max_minutes:
                _log(f"time budget reached at step {step}; stopping early", log_file)
                total_steps = step
                break
            if step % steps_per_epoch == 0 and calib_rows:
                _evaluate(model, tok, calib_rows, cfg, log_file, f"epoch {epoch}")
                model.train()
    final = out_dir / "final"
    model.save_pretrained(final)
    tok.save_pretrained(final)
    if calib_rows:
        _evaluate(model, tok, calib_rows, cfg, log_file, "final")
    _log(f"saved {final}", log_file)
    return final


def _evaluate(model: Any, tok: Any, rows: Sequence[dict], cfg: TrainConfig, log_file: Path, tag: str) -> dict:
    import numpy as np
    from sklearn.metrics import f1_score, roc_auc_score

    logits = predict(model, tok, rows, cfg.max_length)
    probs = logits.softmax(-1).numpy()
    y = np.array([LABELS.index(r["label"]) for r in rows])
    pred = probs.argmax(1)
    res = {"acc": float((pred == y).mean()), "macro_f1": float(f1_score(y, pred, average="macro"))}
    if len(set(y == 0)) == 2:
        res["auroc_entail"] = float(roc_auc_score(y == 0, probs[:, 0]))
    _log(f"eval {tag}: {json.dumps(res)}", log_file)
    return res


def pairs_per_second(model: Any, length: int = 128, batch: int = 32, reps: int = 5, bf16: bool = False) -> float:
    """CPU throughput of a sequence classifier on random token ids (export choice and bench/throughput.py)."""
    import torch

    from faithlint.models.checkers.nli import precision_context

    ids = torch.randint(1000, 20000, (batch, length))
    am = torch.ones_like(ids)
    with torch.inference_mode(), precision_context(bf16):
        model(input_ids=ids, attention_mask=am)
        t = time.perf_counter()
        for _ in range(reps):
            model(input_ids=ids, attention_mask=am)
    return batch * reps / (time.perf_counter() - t)

