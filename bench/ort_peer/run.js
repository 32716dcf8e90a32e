#!/usr/bin/env node
// ONNX Runtime (CPU execution provider) as a peer for bench_onnx_models.
// Benchmark only: installed by bench/run_bench.sh into <build-dir>/ort_peer
// (npm install --prefix), never used by the build or the tests.
//
//   node run.js --model m.onnx --input input.raw [--shape 1,3,224,224]
//               [--threads N] [--warmup 3] [--runs 11]
//     one session, batch 1, intraOpNumThreads = N, interOpNumThreads = 1,
//     sequential execution, all graph optimizations; runs warm-up + runs
//     inferences on the same input and prints
//     {"model":..., "threads":N, "median_ms":..., "runs_ms":[...]}
//
//   node run.js --serve --model ... --input ... [--shape ...] [--threads N]
//     the same session, driven one inference at a time from stdin so that a
//     caller (bench_onnx_models) can interleave it with other engines:
//       "run"          -> one inference, answers "ms <milliseconds>"
//       "output <path>" -> writes the last output as raw float32, answers "ok"
//       "quit"         -> exits
//     It answers "ready" once the session is created. Its intra-op workers
//     spin as ONNX Runtime's defaults have them (openhtp's OpenMP workers
//     spin then sleep too, src/common/openmp_policy.h); bench_onnx_models
//     pauses between engines so neither's spinning lands on the other's run.
//     The time is that of session.run() alone (the input tensor is made once).
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

function parseArgs(argv) {
  const o = {threads: 1, warmup: 3, runs: 11, shape: '1,3,224,224', serve: false};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--serve') { o.serve = true; continue; }
    const v = argv[++i];
    if (v === undefined) throw new Error(`missing value for ${a}`);
    if (a === '--model') o.model = v;
    else if (a === '--input') o.input = v;
    else if (a === '--shape') o.shape = v;
    else if (a === '--threads') o.threads = Math.max(1, parseInt(v, 10));
    else if (a === '--warmup') o.warmup = Math.max(0, parseInt(v, 10));
    else if (a === '--runs') o.runs = Math.max(1, parseInt(v, 10));
    else throw new Error(`unknown option ${a}`);
  }
  if (!o.model || !o.input) throw new Error('--model and --input are required');
  o.dims = o.shape.split(',').map((d) => parseInt(d, 10));
  return o;
}

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const ort = require('onnxruntime-node');
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const session = await ort.InferenceSession.create(o.model, options);
  const buf = fs.readFileSync(o.input);
  const count = o.dims.reduce((a, b) => a * b, 1);
  if (buf.length !== count * 4) throw new Error(`${o.input}: ${buf.length} bytes, shape ${o.shape} needs ${count * 4}`);
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, o.dims)};
  const outName = session.outputNames[0];
  let last = null;
  const once = async () => {
    const t0 = process.hrtime.bigint();
    const out = await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    last = out[outName];
    return ms;
  };

  if (!o.serve) {
    for (let i = 0; i < o.warmup; ++i) await once();
    const runs = [];
    for (let i = 0; i < o.runs; ++i) runs.push(await once());
    console.log(JSON.stringify({model: path.basename(o.model), threads: o.threads, warmup: o.warmup,
                                median_ms: median(runs), runs_ms: runs, onnxruntime: ort.env.versions}));
    return;
  }
  process.stdout.write('ready\n');
  const rl = readline.createInterface({input: process.stdin, terminal: false});
  for await (const line of rl) {
    const [cmd, arg] = line.trim().split(/\s+/, 2);
    if (cmd === 'run') {
      process.stdout.write(`ms ${await once()}\n`);
    } else if (cmd === 'output') {
      const d = last ? last.data : new Float32Array(0);
      fs.writeFileSync(arg, Buffer.from(d.buffer, d.byteOffset, d.byteLength));
      process.stdout.write('ok\n');
    } else if (cmd === 'quit') {
      break;
    } else {
      process.stdout.write(`error unknown command ${cmd}\n`);
    }
  }
  rl.close();
}

main().catch((e) => {
  process.stderr.write(`ort_peer: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
