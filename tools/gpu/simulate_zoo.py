#!/usr/bin/python3
"""Every model of a folder compiled for cuda and run by Lathe's GPU simulator
on this machine (`lathe run --target cuda --simulate-gpu`, no GPU needed),
compared with the oracle's output saved beside the model and with the CPU
build's. NAME.io.npz holds the inputs by their ONNX names and "output" (and
"float_output", ignored), as tools/models/export_models.py and
../shared/models-modern write them.

    python3 tools/gpu/simulate_zoo.py --models /tmp/zoo [--lathe build/bin/lathe]
        [--only resnet18,mlp] [--out results.md]

What it shows is what the cuda kernels compute (the schedules, bindings,
barriers, shared tiles and cross-thread reductions the GPU would run), not
how fast: the simulator runs threads one after another on the host."""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

# Errors are relative to the reference's largest magnitude, as models-modern's
# oracles are measured (their outputs can be far below 1, where an absolute
# floor would hide any error). A float32 output must be within 1e-4 of it; a
# float16 one within two units in the last place of that magnitude.
TOLERANCE = {"float32": 1e-4, "float16": 2 * 2.0**-10}


def tolerance_of(dtype):
    return TOLERANCE.get(str(dtype), TOLERANCE["float32"])


OUTPUTS = ("output", "float_output")  # the rest of NAME.io.npz are the inputs


def run_lathe(lathe, model, inputs, output, extra, timeout):
    command = [lathe, "run", model, "--inputs", inputs, "--output", output] + extra
    start = time.monotonic()
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s", time.monotonic() - start
    if p.returncode != 0:
        return (p.stderr or p.stdout).strip().splitlines()[-1][-400:], time.monotonic() - start
    return None, time.monotonic() - start


def error_against(got_path, expected):
    got = np.load(got_path)
    values = [got[k] for k in got.files]
    if not values:
        return None, "no output"
    g = values[0].astype(np.float64)
    e = expected.astype(np.float64)
    if g.shape != e.shape:
        return None, f"shape {g.shape} vs {e.shape}"
    if not np.all(np.isfinite(g)):
        return None, "non-finite values"
    scale = float(np.max(np.abs(e)))
    difference = float(np.max(np.abs(g - e)))
    # An all-zero reference: exact or not at all.
    return (difference / scale if scale else (0.0 if difference == 0 else float("inf"))), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help="folder of NAME.onnx and NAME.io.npz")
    parser.add_argument("--lathe", default=os.path.join("build", "bin", "lathe"))
    parser.add_argument("--target", default="cuda -arch=sm_90")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per model and run")
    parser.add_argument("--out", help="also write the table here (Markdown)")
    args = parser.parse_args()

    names = sorted(f[:-5] for f in os.listdir(args.models) if f.endswith(".onnx"))
    if args.only:
        wanted = args.only.split(",")
        names = [n for n in names if n in wanted]
    rows = ["| model | simulated cuda vs oracle | CPU build vs oracle "
            "| simulated cuda vs CPU build | simulation s | result |",
            "|---|---|---|---|---|---|"]
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            model = os.path.join(args.models, name + ".onnx")
            io = np.load(os.path.join(args.models, name + ".io.npz"))
            inputs = os.path.join(scratch, name + ".in.npz")
            # The inputs by their ONNX names: every array but the outputs
            # (models-modern adds the float model's as "float_output").
            np.savez(inputs, **{k: io[k] for k in io.files if k not in OUTPUTS})
            gpu_out = os.path.join(scratch, name + ".gpu.npz")
            cpu_out = os.path.join(scratch, name + ".cpu.npz")
            why, seconds = run_lathe(args.lathe, model, inputs, gpu_out,
                                     ["--target", args.target, "--simulate-gpu"], args.timeout)
            gpu_error = cpu_error = None
            if not why:
                gpu_error, why = error_against(gpu_out, io["output"])
            cpu_why, _ = run_lathe(args.lathe, model, inputs, cpu_out, [], args.timeout)
            if not cpu_why:
                cpu_error, cpu_why = error_against(cpu_out, io["output"])
            gpu_cpu, gpu_cpu_why = None, "-"
            if not why and not cpu_why:
                cpu = np.load(cpu_out)
                gpu_cpu, gpu_cpu_why = error_against(gpu_out, cpu[cpu.files[0]])
            # The cuda build must compute what the CPU build does, and be no
            # further from the oracle than the CPU build is (a quantized
            # model's rounding differs from ONNX Runtime's on both).
            tol = tolerance_of(io["output"].dtype)
            ok = (why is None and gpu_error is not None and gpu_cpu is not None and
                  gpu_cpu <= tol and gpu_error <= max(tol, (cpu_error or 0) + tol))
            failures += not ok
            fmt = lambda e, w: f"{e:.1e}" if e is not None else (w or "-")
            rows.append(f"| {name} | {fmt(gpu_error, why)} | {fmt(cpu_error, cpu_why)} | "
                        f"{fmt(gpu_cpu, gpu_cpu_why)} | {seconds:.0f} | {'ok' if ok else 'FAIL'} |")
            print(rows[-1], flush=True)
    table = "\n".join(rows)
    print(f"\n{table}\n\nerrors are max |x - y| / max |y|, y the oracle's or the CPU build's; "
          f"tolerance {TOLERANCE['float32']} (float16 outputs {TOLERANCE['float16']:.1e}), against "
          f"the oracle no more than the CPU build's own error plus it; "
          f"{len(names) - failures} of {len(names)} models ok")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
