"""The device side of the GPU check (tools/gpu/device_check.sh runs it): per
model of the bundle's manifest, lathe_device_run on the GPU (a process of its
own, so that one kernel's fault ends only its model), the comparison with
the CPU's output, and PyTorch eager on the same GPU for the time beside it.
Writes OUT/results.md, OUT/results.json and OUT/profiles.txt."""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import device_tune  # noqa: E402
import tvm_params  # noqa: E402

# Of the output's scale: |gpu - cpu| <= 1e-4 * max |cpu|, with no floor, so
# that an output far below 1 is held to the same relative precision.
TOLERANCE = 1e-4


def run_lathe(bundle, name, repeat, profile):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(bundle, "lib"))
    models = os.path.join(bundle, "models")
    gpu_out = os.path.join(models, name + ".gpu.params")
    command = [os.path.join(bundle, "bin", "lathe_device_run"),
               os.path.join(models, name + ".cuda.tar"),
               "--inputs", os.path.join(models, name + ".inputs.params"),
               "--output", gpu_out, "--repeat", str(repeat), "--profile", profile,
               "--check-each-kernel"]
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after 180 s"}, None
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"error": (p.stderr or p.stdout).strip()[-2000:]}
    if p.returncode != 0 and "error" not in result:
        result["error"] = (p.stderr or "exit status %d" % p.returncode).strip()[-2000:]
    return result, gpu_out if p.returncode == 0 else None


def compare(bundle, name, gpu_out):
    reference = os.path.join(bundle, "models", name + ".cpu.params")
    if not gpu_out or not os.path.exists(reference):
        return None
    cpu = tvm_params.load(reference)
    gpu = tvm_params.load(gpu_out)
    worst = {"max_abs_error": 0.0, "max_abs_cpu": 0.0, "ok": True}
    for key, expected in cpu.items():
        got = gpu.get(key)
        if got is None or got.shape != expected.shape:
            return {"ok": False, "why": f"{key}: shape {None if got is None else got.shape} "
                                        f"vs {expected.shape}"}
        e, g = expected.astype(np.float64), got.astype(np.float64)
        if not np.all(np.isfinite(g)) and np.all(np.isfinite(e)):
            return {"ok": False, "why": f"{key}: non-finite values on the GPU"}
        error = float(np.max(np.abs(g - e))) if e.size else 0.0
        scale = float(np.max(np.abs(e))) if e.size else 0.0
        worst["max_abs_error"] = max(worst["max_abs_error"], error)
        worst["max_abs_cpu"] = max(worst["max_abs_cpu"], scale)
        worst["ok"] = worst["ok"] and error <= TOLERANCE * scale
    return worst


def torch_time(name, shape, repeat):
    """PyTorch eager on the GPU, float32, TF32 off: median ms of `repeat` runs."""
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "models"))
    import export_models  # the zoo's module definitions
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    make = export_models.MODELS[name][0]
    model = make().eval().cuda()
    x = torch.rand(*shape, device="cuda") * 2 - 1
    with torch.no_grad():
        for _ in range(5):
            model(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            model(x)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    return float(np.median(times))


def geomean(values):
    values = [v for v in values if v and v > 0]
    return float(np.exp(np.mean(np.log(values)))) if values else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--gpu-info", default="")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument("--tune-budget-s", type=float, default=150,
                        help="seconds for measuring the GPU tuning candidates, after the zoo")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    with open(os.path.join(args.bundle, "manifest.json")) as f:
        manifest = json.load(f)
    gpu = open(args.gpu_info).read().strip() if args.gpu_info else "?"
    try:
        import torch
        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    rows = []
    profiles = open(os.path.join(args.out, "profiles.txt"), "w")
    for entry in manifest["models"]:
        name = entry["name"]
        if args.names and name not in args.names:
            continue
        row = {"name": name, "kernels": entry.get("kernels"), "reference": entry.get("reference")}
        rows.append(row)
        if entry.get("status") != "ready":
            row["status"] = entry.get("status")
            print(f"{name}: {row['status']}", flush=True)
            continue
        profile = os.path.join(args.bundle, "models", name + ".profile.txt")
        result, gpu_out = run_lathe(args.bundle, name, args.repeat, profile)
        row["lathe"] = result
        if "error" in result:
            row["status"] = "failed on the GPU: " + result["error"].splitlines()[-1][:300]
        else:
            row["status"] = "ran"
            check = compare(args.bundle, name, gpu_out)
            row["check"] = check
            if check is not None and not check["ok"]:
                row["status"] = "wrong output"
        if os.path.exists(profile):
            profiles.write(f"== {name}\n" + open(profile).read() + "\n")
        if torch_version and not args.skip_torch:
            try:
                inputs = tvm_params.load(os.path.join(args.bundle, "models", name + ".inputs.params"))
                shape = inputs["input"].shape
                row["torch_ms"] = torch_time(name, shape, args.repeat)
            except Exception as e:  # a model PyTorch cannot build here is reported, not fatal
                row["torch_error"] = f"{type(e).__name__}: {e}"[:300]
        lathe_ms = result.get("median_ms")
        if lathe_ms and row.get("torch_ms"):
            row["ratio"] = lathe_ms / row["torch_ms"]
        print(f"{name}: {row['status']} lathe {lathe_ms} ms torch {row.get('torch_ms')} ms "
              f"check {row.get('check')}", flush=True)

    lathe_ms = {r["name"]: r.get("lathe", {}).get("median_ms") for r in rows}
    torch_ms = {r["name"]: r.get("torch_ms") for r in rows}
    tune_tasks, tune_models = device_tune.tune_models(
        args.bundle, manifest, lathe_ms, args.tune_budget_s,
        os.path.join(args.out, "gpu_tuning_records.json"))

    summary = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "gpu": gpu,
               "torch": torch_version, "prepared": manifest.get("prepared"),
               "git": manifest.get("git"), "target": manifest.get("target"),
               "correct": sum(1 for r in rows if r.get("check", {}) and r["check"].get("ok")),
               "models": len(rows),
               "geomean_ratio": geomean([r.get("ratio") for r in rows]), "rows": rows,
               "tune_tasks": tune_tasks, "tune_models": tune_models}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(summary, f, indent=1)
    lines = [f"GPU device check, {summary['date']}: {gpu}; PyTorch {torch_version}; "
             f"packages from {summary['git']} ({summary['target']}), prepared {summary['prepared']}",
             "",
             "| model | kernels | status | max abs error (max abs CPU) | Lathe median ms | "
             "sum of kernels ms | PyTorch eager ms | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lathe = r.get("lathe", {})
        check = r.get("check")
        error = (f"{check['max_abs_error']:.2e} ({check['max_abs_cpu']:.3g})"
                 if check and "max_abs_error" in check else
                 (check or {}).get("why", "no reference" if r.get("status") == "ran" else ""))
        fmt = lambda v: f"{v:.3f}" if isinstance(v, float) else ""  # noqa: E731
        lines.append(f"| {r['name']} | {r.get('kernels') or ''} | {r['status']} | {error} | "
                     f"{fmt(lathe.get('median_ms'))} | {fmt(lathe.get('kernels_sum_ms'))} | "
                     f"{fmt(r.get('torch_ms'))} | {fmt(r.get('ratio'))} |")
    g = summary["geomean_ratio"]
    lines += ["", f"{summary['correct']} of {summary['models']} models match the CPU within "
              f"{TOLERANCE:g} of the output's scale; geometric mean of Lathe / PyTorch: "
              + (f"{g:.2f}" if g else "n/a")]
    if tune_tasks or tune_models:
        lines += device_tune.markdown(tune_tasks, tune_models, torch_ms)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
