#!/usr/bin/env node
// ONNX Runtime (CPU execution provider) as the peer of examples/llm_decode.cpp
// on the very same ONNX graphs (models/tinylm: prefill.onnx, decode.onnx, their
// external weights tinylm.weights). Benchmark only, like run.js: installed by
// bench/run_bench.sh into <build-dir>/ort_peer, never used by the build or
// the tests.
//
//   node llm.js --data DIR [--threads N] [--reps R] [--warmup W]
//     two sessions (prefill, decode), batch 1, intraOpNumThreads = N,
//     interOpNumThreads = 1, sequential execution, all graph optimizations (the
//     options of run.js); then R repetitions (after W warm-up ones) of the
//     example's greedy decode over every prompt of DIR/prompts.txt:
//       prefill the 16-token prompt -> first token (argmax) and cache rows 0..15;
//       64 decode steps: token, position = 16 + step, mask (0 = attend,
//       -100 = not) and the whole cache [256, L,2,H,D] in; the kv output copied
//       into cache row `position` and mask[position] set to 0 after the step;
//       the next token = argmax(logits).
//     The tokens are checked against DIR/expected.txt (PyTorch's). It prints
//     one JSON line:
//       {"engine":"onnxruntime", "threads":N, "tokens_per_s": median over the
//        repetitions, "tokens_per_s_runs":[...], "prefill_ms": median,
//        "tokens":..., "agreeing":..., "mismatches":[...], ...}
//     tokens/s is the example's figure: decode steps only (all prompts' decode
//     time together, from the first decode step to the last argmax; the copies
//     into the cache and the mask are inside it), prefill not counted.
//
//   node llm.js --serve --data DIR [--threads N]
//     the same sessions, one repetition at a time from stdin, so that a caller
//     can interleave ORT with other engines in one process's lifetime:
//       "run"  -> one repetition over all prompts, answers one JSON line
//                 {"tokens_per_s":..., "prefill_ms":..., "agreeing":..., "tokens":...}
//       "quit" -> exits
//     It answers "ready" once the sessions are created (and one warm-up
//     repetition has run). Its intra-op workers spin as ONNX Runtime's
//     defaults have them, as in run.js.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const MASK_ON = 0.0, MASK_OFF = -100.0;  // as models/tinylm/make_tinylm.py

function parseArgs(argv) {
  const o = {threads: 1, reps: 5, warmup: 1, serve: false};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--serve') { o.serve = true; continue; }
    const v = argv[++i];
    if (v === undefined) throw new Error(`missing value for ${a}`);
    if (a === '--data') o.data = v;
    else if (a === '--threads') o.threads = Math.max(1, parseInt(v, 10));
    else if (a === '--reps') o.reps = Math.max(1, parseInt(v, 10));
    else if (a === '--warmup') o.warmup = Math.max(0, parseInt(v, 10));
    else throw new Error(`unknown option ${a}`);
  }
  if (!o.data) throw new Error('--data DIR (the folder of prefill.onnx and decode.onnx) is required');
  return o;
}

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

function readLines(file) {
  return fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
}

// prompts.txt: 16 ids a line; expected.txt: PyTorch's tokens, '|', its margins.
function readPrompts(dir) {
  const prompts = readLines(path.join(dir, 'prompts.txt')).map((l) => l.split(/\s+/).map(Number));
  const expected = readLines(path.join(dir, 'expected.txt')).map((l) => {
    const bar = l.indexOf('|');
    if (bar < 0) throw new Error('expected.txt: a line without "|" between tokens and margins');
    return {tokens: l.slice(0, bar).trim().split(/\s+/).map(Number),
            margins: l.slice(bar + 1).trim().split(/\s+/).map(Number)};
  });
  if (prompts.length === 0 || prompts.length !== expected.length) {
    throw new Error('prompts.txt and expected.txt differ in length (or are empty)');
  }
  return {prompts, expected};
}

function argmax(a) {
  let best = 0;
  for (let i = 1; i < a.length; ++i) if (a[i] > a[best]) best = i;
  return best;
}

async function makeDecoder(ort, o) {
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  // The graphs name their weights as external data relative to themselves:
  // a session made from a path finds tinylm.weights next to the .onnx file.
  const prefill = await ort.InferenceSession.create(path.join(o.data, 'prefill.onnx'), options);
  const decode = await ort.InferenceSession.create(path.join(o.data, 'decode.onnx'), options);
  const {prompts, expected} = readPrompts(o.data);

  const pastMeta = decode.inputMetadata ? decode.inputMetadata.find((m) => m.name === 'past_kv') : null;
  // past_kv [C, L, 2, H, D]; the shapes are fixed by make_tinylm.py, checked here against the outputs.
  const dims = pastMeta && pastMeta.shape && pastMeta.shape.every((d) => typeof d === 'number') ?
    pastMeta.shape : [256, 4, 2, 4, 64];
  const context = dims[0];
  const row = dims.slice(1).reduce((a, b) => a * b, 1);
  const cache = new Float32Array(context * row);
  const mask = new Float32Array(context);
  const tCache = new ort.Tensor('float32', cache, dims);
  const tMask = new ort.Tensor('float32', mask, [1, context]);
  const tokenData = new BigInt64Array(1), positionData = new BigInt64Array(1);
  const tToken = new ort.Tensor('int64', tokenData, [1, 1]);
  const tPosition = new ort.Tensor('int64', positionData, [1, 1]);

  // One repetition: every prompt, prefill then the decode steps.
  return async function repetition() {
    let decodeNs = 0n, prefillNs = 0n, tokens = 0, agreeing = 0;
    const mismatches = [];
    for (let p = 0; p < prompts.length; ++p) {
      const prompt = prompts[p], want = expected[p].tokens;
      const P = prompt.length;
      cache.fill(0);
      const tTokens = new ort.Tensor('int64', BigInt64Array.from(prompt, (t) => BigInt(t)), [1, P]);
      const t0 = process.hrtime.bigint();
      const pre = await prefill.run({tokens: tTokens});
      cache.set(pre.kv.data, 0);  // rows 0..P-1
      let token = argmax(pre.logits.data);
      prefillNs += process.hrtime.bigint() - t0;
      for (let i = 0; i < context; ++i) mask[i] = i < P ? MASK_ON : MASK_OFF;
      const got = [];
      const t1 = process.hrtime.bigint();
      for (let step = 0; step < want.length && P + step < context; ++step) {
        const pos = P + step;
        got.push(token);
        tokenData[0] = BigInt(token);
        positionData[0] = BigInt(pos);
        const out = await decode.run({token: tToken, position: tPosition, mask: tMask, past_kv: tCache});
        cache.set(out.kv.data, pos * row);  // this token's keys and values: cache row `pos`
        mask[pos] = MASK_ON;
        token = argmax(out.logits.data);
      }
      decodeNs += process.hrtime.bigint() - t1;
      let first = -1, same = 0;
      for (let i = 0; i < got.length; ++i) {
        if (got[i] === want[i]) ++same;
        else if (first < 0) first = i;
      }
      tokens += got.length, agreeing += same;
      if (first >= 0) {
        mismatches.push({prompt: p, first_differs_at: first, equal: same, of: got.length,
                         pytorch_top2_margin_before: first > 0 ? expected[p].margins[first - 1] : null});
      }
    }
    return {tokens_per_s: tokens / (Number(decodeNs) / 1e9), prefill_ms: Number(prefillNs) / 1e6 / prompts.length,
            tokens, agreeing, mismatches};
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const ort = require('onnxruntime-node');
  const repetition = await makeDecoder(ort, o);
  if (!o.serve) {
    for (let i = 0; i < o.warmup; ++i) await repetition();
    const runs = [];
    for (let i = 0; i < o.reps; ++i) runs.push(await repetition());
    const last = runs[runs.length - 1];
    console.log(JSON.stringify({
      engine: 'onnxruntime', threads: o.threads, reps: o.reps, warmup: o.warmup,
      tokens_per_s: median(runs.map((r) => r.tokens_per_s)),
      tokens_per_s_runs: runs.map((r) => r.tokens_per_s),
      prefill_ms: median(runs.map((r) => r.prefill_ms)),
      prefill_ms_runs: runs.map((r) => r.prefill_ms),
      tokens: last.tokens, agreeing: last.agreeing, mismatches: last.mismatches,
      onnxruntime: ort.env.versions}));
    return;
  }
  await repetition();  // warm-up
  process.stdout.write('ready\n');
  const rl = readline.createInterface({input: process.stdin, terminal: false});
  for await (const line of rl) {
    const cmd = line.trim();
    if (cmd === 'run') {
      process.stdout.write(JSON.stringify(await repetition()) + '\n');
    } else if (cmd === 'quit') {
      break;
    } else {
      process.stdout.write(`error unknown command ${cmd}\n`);
    }
  }
  rl.close();
}

main().catch((e) => {
  process.stderr.write(`ort_peer llm: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
