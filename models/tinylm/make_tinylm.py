#!/usr/bin/python3
"""Makes `tinylm`, the small decoder-only transformer of the LLM-decoding demo, and its test data.

How it is run (Debian's torch 1.13 / onnx 1.12; the pyenv python3 on PATH cannot see them):

    /usr/bin/python3 models/tinylm/make_tinylm.py     # writes models/tinylm/: ~2-4 min on 2 cores

Its outputs are checked in, so nothing in the build or the tests needs torch; rerun it only to
change the model (torch's CPU kernels are not bit-reproducible across machines: regenerate and
commit every file together).

The model: 4 pre-LayerNorm blocks, d_model 256, 4 heads of 64, feed-forward 512 with GELU, learned
positions, context 256, vocabulary 1000, the output layer tied to the token embedding. It is trained
for a few hundred steps on a synthetic language so that its next-token choices are decisive, as a
real LM's mostly are (with random weights the top-2 margins are near zero and an 8-bit comparison
says nothing): a sequence opens with a mode token m (0 or 1) and a random start, and every later
token is SUCCESSOR[m] of the one before (two random permutations of the other 998 tokens). Every
prediction needs the mode, i.e. attention back to position 0 through the KV cache at each step.

What it writes (docs/llm-decoding.md):
  prefill.onnx     tokens int64 [1,16] -> logits [1,1000] (of the last position),
                   kv [16,4,2,4,64] (every layer's K and V of the 16 positions, position-major)
  decode.onnx      token int64 [1,1], position int64 [1,1], mask [1,256] (0 = attend, -100 = not),
                   past_kv [256,4,2,4,64] -> logits [1,1000], kv [1,4,2,4,64]
  tinylm.weights   the weights of both graphs, once (ONNX external data: both .onnx files point here)
  prompts.txt      one prompt a line: 16 token ids
  expected.txt     per prompt, PyTorch's 64 greedy tokens, then its top-2 margin at each step
  expected_logits/prompt_N.raw  PyTorch's float32 logits of each decode step [64,1000]
Position-major KV ([position, layer, K/V, head, dim]) makes one token's K and V of every layer one
contiguous 8 KiB row: the decode graph's `kv` output is bound straight onto row `position` of the
cache it reads as `past_kv`, so the cache is updated in place and nothing is copied per token.
"""
import hashlib
import os
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 20261202
VOCAB, D, HEADS, LAYERS, FFN, CTX = 1000, 256, 4, 4, 512, 256
DH = D // HEADS
PROMPT = 16
DECODE_STEPS = 64
MODES = 2
MASK_OFF = -100.0  # the decode graph's mask input for positions not in the cache. Those rows are
                   # zero (a sequence starts from a zeroed cache), so their score is the mask
                   # itself: it must sit far below any real score (a trained model's reach
                   # |25|; -30 let the zero rows take weight from a head whose scores were all
                   # low: 0.06 off the full forward pass), yet stay finite for an 8-bit encoding
                   # of the mask (-inf or -1e9 would not).
CAUSAL_OFF = float("-inf")  # training and prefill: future positions hold real keys, so they are
                            # masked for good (a finite mask lets a trained model peek ahead)
TRAIN_STEPS = int(os.environ.get("TINYLM_TRAIN_STEPS", "300"))
BATCH, TRAIN_LEN = 8, 96
NUM_PROMPTS = 4
HERE = os.path.dirname(os.path.abspath(__file__))


# The language's two successor maps, fixed by the seed: mode m continues token x with SUCCESSOR[m][x].
_perm_gen = torch.Generator().manual_seed(SEED + 7)
SUCCESSOR = [MODES + torch.randperm(VOCAB - MODES, generator=_perm_gen) for _ in range(MODES)]


def language(gen, n, length):
    """Sequences of the synthetic language, [n, length]: a mode token, a random start, then each
    token the mode's successor of the one before. Also the mask of the determined positions."""
    mode = torch.randint(0, MODES, (n,), generator=gen)
    x = torch.empty(n, length, dtype=torch.long)
    x[:, 0] = mode
    x[:, 1] = MODES + torch.randint(0, VOCAB - MODES, (n,), generator=gen)
    for t in range(2, length):
        for i in range(n):
            x[i, t] = SUCCESSOR[int(mode[i])][int(x[i, t - 1]) - MODES]
    known = torch.zeros(n, length, dtype=torch.bool)
    known[:, 2:] = True
    return x, known


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(D, D) for _ in range(4))
        self.ln2 = nn.LayerNorm(D)
        self.fc1 = nn.Linear(D, FFN)
        self.fc2 = nn.Linear(FFN, D)

    def qkv(self, x):  # x [T, D] -> q, k, v [T, H, DH]
        h = self.ln1(x)
        t = x.shape[0]
        return (self.wq(h).reshape(t, HEADS, DH), self.wk(h).reshape(t, HEADS, DH),
                self.wv(h).reshape(t, HEADS, DH))

    def finish(self, x, attn):  # attn [T, H, DH]
        x = x + self.wo(attn.reshape(x.shape[0], D))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def attend(q, k, v, bias):  # q [Tq,H,DH], k/v [Tk,H,DH], bias [Tq,Tk]
    s = torch.matmul(q.transpose(0, 1), k.permute(1, 2, 0)) * (1.0 / DH ** 0.5) + bias
    return torch.matmul(torch.softmax(s, dim=-1), v.transpose(0, 1)).transpose(0, 1)


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(CTX, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.lnf = nn.LayerNorm(D)
        # A constant (aten::triu has no opset-13 export): 0 on and below the diagonal.
        for e in (self.tok, self.pos):
            nn.init.normal_(e.weight, std=0.02)  # GPT-style: with N(0, 1) the tied head starts at logits ~250
        self.register_buffer("causal", torch.triu(torch.full((CTX, CTX), CAUSAL_OFF), diagonal=1), persistent=False)

    def head(self, x):
        return torch.matmul(self.lnf(x), self.tok.weight.t())

    def forward_batch(self, tokens):  # training: tokens [B, T] -> logits [B, T, V]
        b, t = tokens.shape
        x = self.tok(tokens) + self.pos.weight[:t]
        for blk in self.blocks:
            h = blk.ln1(x)
            q, k, v = (w(h).reshape(b, t, HEADS, DH).transpose(1, 2) for w in (blk.wq, blk.wk, blk.wv))
            s = torch.matmul(q, k.transpose(2, 3)) * (1.0 / DH ** 0.5) + self.causal[:t, :t]
            a = torch.matmul(torch.softmax(s, dim=-1), v).transpose(1, 2).reshape(b, t, D)
            x = x + blk.wo(a)
            x = x + blk.fc2(F.gelu(blk.fc1(blk.ln2(x))))
        return self.head(x)

    def forward_seq(self, tokens):  # tokens [T] -> logits [T, V], kv [T, L, 2, H, DH]
        t = tokens.shape[0]
        x = self.tok(tokens) + self.pos.weight[:t]
        causal = self.causal[:t, :t]
        kv = []
        for b in self.blocks:
            q, k, v = b.qkv(x)
            kv.append(torch.stack([k, v], dim=1))
            x = b.finish(x, attend(q, k, v, causal))
        return self.head(x), torch.stack(kv, dim=1)


class Prefill(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, tokens):  # [1, PROMPT]
        logits, kv = self.lm.forward_seq(tokens[0])
        return logits[-1:], kv


class Decode(nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, token, position, mask, past_kv):
        lm = self.lm
        x = lm.tok(token[0]) + lm.pos(position[0])  # [1, D]
        bias = torch.cat([mask, torch.zeros(1, 1)], dim=1)  # the new token attends to itself
        kv = []
        for i, b in enumerate(lm.blocks):
            q, k, v = b.qkv(x)
            kv.append(torch.stack([k, v], dim=1))
            keys = torch.cat([past_kv[:, i, 0], k], dim=0)
            values = torch.cat([past_kv[:, i, 1], v], dim=0)
            x = b.finish(x, attend(q, keys, values, bias))
        return lm.head(x), torch.stack(kv, dim=1)


def train(lm, gen):
    opt = torch.optim.AdamW(lm.parameters(), lr=3e-3, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=TRAIN_STEPS, pct_start=0.1)
    start = time.time()
    for step in range(TRAIN_STEPS):
        x, known = language(gen, BATCH, TRAIN_LEN)
        logits = lm.forward_batch(x[:, :-1])
        # Only determined tokens are targets: the phrase itself is random.
        sel = known[:, 1:].reshape(-1)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB)[sel], x[:, 1:].reshape(-1)[sel])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 10 == 0 or step == TRAIN_STEPS - 1:
            print(f"  step {step:4d}  loss {loss.item():.4f}  ({time.time() - start:.0f} s)", flush=True)


def share_external_data(paths, weights_name):
    """Moves the initializers of every model into one file, each distinct tensor once."""
    blobs, offsets = bytearray(), {}
    models = [onnx.load(p) for p in paths]
    for m in models:
        for init in m.graph.initializer:
            raw = onnx.numpy_helper.to_array(init).tobytes()
            if len(raw) < 1024:
                continue  # small constants (shapes, scalars) stay inline
            key = hashlib.sha256(raw).hexdigest()
            if key not in offsets:
                blobs += b"\0" * (-len(blobs) % 64)
                offsets[key] = len(blobs)
                blobs += raw
            init.ClearField("raw_data")
            for field in ("float_data", "int32_data", "int64_data", "double_data"):
                init.ClearField(field)
            del init.external_data[:]
            for k, v in (("location", weights_name), ("offset", str(offsets[key])), ("length", str(len(raw)))):
                e = init.external_data.add()
                e.key, e.value = k, v
            init.data_location = onnx.TensorProto.EXTERNAL
    with open(os.path.join(HERE, weights_name), "wb") as f:
        f.write(blobs)
    for m, p in zip(models, paths):
        onnx.save(m, p)
    return len(blobs), len(offsets)


def main():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    torch.set_num_threads(os.cpu_count() or 2)
    lm = TinyLM()
    # TINYLM_STATE=file: reuse weights trained by an earlier run (saved there after training), to
    # redo the exports and test data without training again.
    state = os.environ.get("TINYLM_STATE")
    if state and os.path.exists(state):
        lm.load_state_dict(torch.load(state))
        print(f"tinylm: weights from {state}")
    else:
        print(f"tinylm: {sum(p.numel() for p in lm.parameters())} parameters; training {TRAIN_STEPS} steps")
        train(lm, gen)
        if state:
            torch.save(lm.state_dict(), state)
    lm.eval()

    # Prompts: each mode twice, each a start and its successors.
    pgen = torch.Generator().manual_seed(SEED + 1)
    prompts, _ = language(pgen, NUM_PROMPTS, PROMPT)
    for i in range(NUM_PROMPTS):
        prompts[i, 0] = i % MODES
        for t in range(2, PROMPT):
            prompts[i, t] = SUCCESSOR[i % MODES][int(prompts[i, t - 1]) - MODES]

    prefill, decode = Prefill(lm), Decode(lm)
    lines, margins_lines, worst = [], [], []
    os.makedirs(os.path.join(HERE, "expected_logits"), exist_ok=True)
    with torch.no_grad():
        for i, p in enumerate(prompts):
            logits, kv = prefill(p[None, :])
            cache = torch.zeros(CTX, LAYERS, 2, HEADS, DH)
            cache[:PROMPT] = kv
            mask = torch.full((1, CTX), MASK_OFF)
            mask[0, :PROMPT] = 0.0
            token = int(logits[0].argmax())
            tokens, margins, step_logits = [], [], []
            full = list(p.tolist())
            for step in range(DECODE_STEPS):
                pos = PROMPT + step
                tokens.append(token)
                full.append(token)
                logits, new_kv = decode(torch.tensor([[token]]), torch.tensor([[pos]]), mask, cache)
                cache[pos] = new_kv[0]
                mask[0, pos] = 0.0
                top2 = torch.topk(logits[0], 2).values
                margins.append(float(top2[0] - top2[1]))
                step_logits.append(logits[0].numpy().copy())
                token = int(logits[0].argmax())
            # The cached decode must agree with a plain full-sequence forward pass (the script's own check).
            ref, _ = lm.forward_seq(torch.tensor(full))
            got = np.stack(step_logits)
            diff = float(np.abs(ref[PROMPT:].numpy() - got).max())
            assert diff < 1e-3, f"prompt {i}: cached decode differs from the full forward pass by {diff}"
            succ = SUCCESSOR[full[0]]
            rule_ok = sum(1 for t in range(PROMPT, len(full)) if full[t] == int(succ[full[t - 1] - MODES]))
            print(f"  prompt {i}: mode {int(p[0])}, min top-2 margin {min(margins):.3f}, "
                  f"{rule_ok}/{len(full) - PROMPT} tokens follow the rule, cached vs full max diff {diff:.2e}")
            np.stack(step_logits).astype(np.float32).tofile(os.path.join(HERE, "expected_logits", f"prompt_{i}.raw"))
            lines.append(" ".join(str(int(t)) for t in p))
            margins_lines.append(" ".join(str(t) for t in tokens) + " | " + " ".join(f"{m:.6g}" for m in margins))
            worst.append(min(margins))

    # Export both graphs; int64 ids as ONNX and PyTorch use them (the converter makes them INT_32).
    cache0 = torch.zeros(CTX, LAYERS, 2, HEADS, DH)
    mask0 = torch.full((1, CTX), MASK_OFF)
    paths = [os.path.join(HERE, "prefill.onnx"), os.path.join(HERE, "decode.onnx")]
    torch.onnx.export(prefill, (prompts[:1],), paths[0], opset_version=13, input_names=["tokens"],
                      output_names=["logits", "kv"], do_constant_folding=True)
    torch.onnx.export(decode, (torch.tensor([[5]]), torch.tensor([[PROMPT]]), mask0, cache0), paths[1],
                      opset_version=13, input_names=["token", "position", "mask", "past_kv"],
                      output_names=["logits", "kv"], do_constant_folding=True)
    for p, name in zip(paths, ("prefill", "decode")):
        m = onnx.load(p)
        m.graph.name = name
        onnx.save(m, p)
    size, count = share_external_data(paths, "tinylm.weights")
    print(f"  tinylm.weights: {count} tensors, {size} bytes, shared by prefill.onnx and decode.onnx")
    for p in paths:
        onnx.checker.check_model(p)
    with open(os.path.join(HERE, "prompts.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(margins_lines) + "\n")
    print(f"done; smallest top-2 margin over all steps: {min(worst):.4f}")


if __name__ == "__main__":
    sys.exit(main())
