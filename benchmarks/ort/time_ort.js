// Times ONNX Runtime's CPU provider on one model, for bench_models and the
// studio: the same inputs (raw little-endian files of any dtype ONNX Runtime
// takes), the given number of intra-op threads, all graph optimisations.
// Prints {"median_ms", "min_ms", "runs", "times"} (every run in order, ms) as
// JSON and writes the first output's values, as float32, to OUTPUT.bin.
//   node time_ort.js MODEL.onnx INPUTS.json THREADS RUNS OUTPUT.bin
// INPUTS.json: [{"name": "x", "type": "float32", "dims": [1, 3, 224, 224], "file": "x.bin"}, ...]
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const arrays = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array,
  uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};

function tensorOf(spec) {
  const bytes = fs.readFileSync(spec.file);
  const Type = arrays[spec.type];
  if (!Type) throw new Error(`input '${spec.name}': dtype ${spec.type} is not supported here`);
  // A copy: the view must be aligned to the element size.
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new ort.Tensor(spec.type, new Type(buffer), spec.dims);
}

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

function asFloat32(tensor) {
  const out = new Float32Array(tensor.data.length);
  for (let i = 0; i < out.length; ++i) {
    const v = tensor.data[i];
    out[i] = tensor.type === 'float16' && typeof v === 'number' && tensor.data instanceof Uint16Array
        ? halfToFloat(v) : Number(v);
  }
  return out;
}

async function main() {
  const [model, inputsJson, threads, runs, outputBin] = process.argv.slice(2);
  if (!outputBin) throw new Error('usage: time_ort.js MODEL INPUTS.json THREADS RUNS OUTPUT.bin');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const spec of JSON.parse(fs.readFileSync(inputsJson, 'utf8'))) feeds[spec.name] = tensorOf(spec);
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
  const first = asFloat32(outputs[session.outputNames[0]]);
  fs.writeFileSync(outputBin, Buffer.from(first.buffer, first.byteOffset, first.byteLength));
  console.log(JSON.stringify({median_ms: times[times.length >> 1], min_ms: times[0], runs: times.length, times: inOrder}));
}

main().catch((e) => {
  console.error('time_ort.js: ' + e.message);
  process.exit(1);
});
