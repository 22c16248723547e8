// Calibration ranges for tools/models/quantize_qdq.py, measured as ONNX
// Runtime's MinMax calibrator measures them: the float model, with the tensors
// to calibrate added as graph outputs, run in a session with graph
// optimisations disabled, over every calibration input; for each tensor the
// smallest minimum and the largest maximum over the runs.
//   node ort_ranges.js MODEL.onnx FEEDS.json
// FEEDS.json: [[{"name", "type", "dims", "file"}, ...], ...], one list per run
// (raw little-endian files, as benchmarks/ort/time_ort.js reads them).
// Prints {"tensor": [min, max], ...} as JSON.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', '..', 'benchmarks', 'ort', 'node_modules', 'onnxruntime-node'));

const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array};

function tensorOf(spec) {
  const bytes = fs.readFileSync(spec.file);
  const Type = arrays[spec.type];
  if (!Type) throw new Error(`input '${spec.name}': dtype ${spec.type} is not supported here`);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new ort.Tensor(spec.type, new Type(buffer), spec.dims);
}

async function main() {
  const [model, feedsJson] = process.argv.slice(2);
  if (!feedsJson) throw new Error('usage: ort_ranges.js MODEL.onnx FEEDS.json');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 2,
    graphOptimizationLevel: 'disabled',
  });
  const ranges = {};
  for (const run of JSON.parse(fs.readFileSync(feedsJson, 'utf8'))) {
    const feeds = {};
    for (const spec of run) feeds[spec.name] = tensorOf(spec);
    const outputs = await session.run(feeds);
    for (const name of session.outputNames) {
      const t = outputs[name];
      if (t.type !== 'float32') continue;
      let lo = Infinity, hi = -Infinity;
      for (const v of t.data) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      const r = ranges[name];
      ranges[name] = r ? [Math.min(r[0], lo), Math.max(r[1], hi)] : [lo, hi];
    }
  }
  console.log(JSON.stringify(ranges));
}

main().catch((e) => {
  console.error('ort_ranges.js: ' + e.message);
  process.exit(1);
});
