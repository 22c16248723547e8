// Times ONNX Runtime's CPU provider on one model, for bench_models: the same
// input (float32, raw little-endian), the given number of intra-op threads,
// all graph optimisations. Prints {"median_ms", "min_ms", "runs", "times"}
// (every run in order, ms) as JSON and
// writes the first output's float32 values to OUTPUT.bin for the check.
//   node time_ort.js MODEL.onnx INPUT_NAME INPUT.bin 1x3x224x224 THREADS RUNS OUTPUT.bin
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, inputName, inputBin, shapeText, threads, runs, outputBin] = process.argv.slice(2);
  if (!outputBin) throw new Error('usage: time_ort.js MODEL INPUT_NAME INPUT.bin SHAPE THREADS RUNS OUTPUT.bin');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const bytes = fs.readFileSync(inputBin);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const feeds = {[inputName]: new ort.Tensor('float32', data, shapeText.split('x').map(Number))};
  let outputs = null;
  for (let i = 0; i < 5; ++i) outputs = await session.run(feeds);  // warm-up
  const times = [];
  for (let i = 0; i < Number(runs); ++i) {
    const start = process.hrtime.bigint();
    outputs = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const inOrder = times.slice();
  times.sort((a, b) => a - b);
  const first = outputs[session.outputNames[0]].data;
  fs.writeFileSync(outputBin, Buffer.from(first.buffer, first.byteOffset, first.byteLength));
  console.log(JSON.stringify({median_ms: times[times.length >> 1], min_ms: times[0], runs: times.length, times: inOrder}));
}

main().catch((e) => {
  console.error('time_ort.js: ' + e.message);
  process.exit(1);
});
