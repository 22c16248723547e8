#!/usr/bin/python3
"""Prepares, on a machine without a GPU, what tools/gpu/device_check.sh runs
on one: for every model of the zoo a cuda package compiled here, its input,
and the CPU's output for the same package graph, with lathe_device_run and
the libraries it needs, in one compressed bundle that the device tool carries.

The device tool carries at most 64 MiB, and the zoo's weights alone are
larger (ResNet-50 100 MB, AlexNet 244 MB). So each package is written
"lite": float32 parameters of rank 2 or more with 4096 elements or more are
left out of mod.params, which makes them inputs of the graph, and
lathe_device_run fills such inputs with values seeded by their names
(variance 1/fan_in, as a network's weights). The CPU reference is made the
same way here: the model compiled for the CPU without the NCHWc layout pass
(so that its parameters are the cuda build's), made lite, run by the same
runner on the same input. What is compared is then one graph, one input and
one set of weights on the two devices. A model whose CPU and cuda packages
take different parameters is still timed, without a reference.

GPU tuning (--tune resnet50,mobilenet_v2): the heaviest --tune-tasks cuda
tasks of those models, each with its untuned schedule and --tune-candidates
candidates from the cuda template and the GPU sketches, built and verified
here by lathe_gpu_candidates (the device has no LLVM); on the device
lathe_device_tune measures them with CUDA events, and device_check.py
reports tuned against untuned against PyTorch eager.

usage: prepare_device_check.py --models DIR [--build BUILD] [--out .gpu]
                               [--target "cuda -arch=sm_90"] [--tune M1,M2]
                               [--tune-tasks 3] [--tune-candidates 32] [NAME ...]
Writes OUT/bundle.tar.xz and OUT/manifest.json (also inside the bundle).
"""

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tvm_params  # noqa: E402

LITE_MIN_ELEMENTS = 4096
# What the runner needs beyond glibc, libstdc++ and libgcc, which the device
# machine (Ubuntu 24.04) has in newer versions.
SYSTEM_LIBS = ("libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "linux-vdso",
               "libpthread.so", "libdl.so", "librt.so")


def read_members(path):
    with tarfile.open(path) as tar:
        return {m.name.lstrip("./"): tar.extractfile(m).read() for m in tar.getmembers()
                if m.isfile()}


def write_members(path, members):
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))


def make_lite(package, lite, scratch):
    """Writes `lite` without the large weights; returns {name: (dtype, shape)} it kept and left."""
    members = read_members(package)
    params_file = os.path.join(scratch, "mod.params")
    with open(params_file, "wb") as f:
        f.write(members["mod.params"])
    params = tvm_params.load(params_file)
    kept = {}
    left = {}
    for name, a in params.items():
        big = a.dtype == np.float32 and a.ndim >= 2 and a.size >= LITE_MIN_ELEMENTS
        (left if big else kept)[name] = a
    tvm_params.save(params_file, kept)
    with open(params_file, "rb") as f:
        members["mod.params"] = f.read()
    write_members(lite, members)
    return {n: (str(a.dtype), a.shape) for n, a in params.items()}, sorted(left)


def run(command, timeout, log):
    log.write("$ " + " ".join(command) + "\n")
    log.flush()
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"
    log.write(p.stdout[-4000:] + p.stderr[-4000:] + "\n")
    return p.returncode, p.stdout, p.stderr


def last_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def runtime_libraries(runner):
    """The runner's shared libraries other than the system's, by ldd."""
    out = subprocess.run(["ldd", runner], capture_output=True, text=True, check=True).stdout
    libs = []
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) != 2:
            continue
        name, path = parts[0].strip(), parts[1].split("(")[0].strip()
        if not path or name.startswith(SYSTEM_LIBS):
            continue
        if path == "not found":
            sys.exit(f"prepare_device_check: {runner} needs {name}, which is not found")
        libs.append((name, path))
    return libs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help="folder of NAME.onnx and NAME.io.npz")
    parser.add_argument("--build", default="build", help="the build folder (bin/lathe, tools/)")
    parser.add_argument("--out", default=".gpu")
    parser.add_argument("--target", default="cuda -arch=sm_90")
    parser.add_argument("--compile-timeout", type=int, default=900)
    parser.add_argument("--tune", default="", help="models whose heaviest tasks to tune there")
    parser.add_argument("--tune-tasks", type=int, default=3)
    parser.add_argument("--tune-candidates", type=int, default=32)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()

    lathe = os.path.join(args.build, "bin", "lathe")
    runner = os.path.join(args.build, "tools", "lathe_device_run")
    tuner = os.path.join(args.build, "tools", "lathe_device_tune")
    candidates = os.path.join(args.build, "tools", "lathe_gpu_candidates")
    tune_models = [m for m in args.tune.split(",") if m]
    tools = (lathe, runner) + ((tuner, candidates) if tune_models else ())
    for tool in tools:
        if not os.access(tool, os.X_OK):
            sys.exit(f"prepare_device_check: no {tool}; build the targets lathe and lathe_device_run"
                     " (with --tune also lathe_device_tune and lathe_gpu_candidates)")
    names = args.names or sorted(f[:-5] for f in os.listdir(args.models) if f.endswith(".onnx"))
    stage = os.path.join(args.out, "stage")
    shutil.rmtree(stage, ignore_errors=True)
    for sub in ("models", "lib", "bin", "work"):
        os.makedirs(os.path.join(stage, sub))
    work = os.path.join(stage, "work")
    log = open(os.path.join(args.out, "prepare.log"), "w")
    manifest = {"target": args.target, "prepared": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "git": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                      text=True).stdout.strip(),
                "models": []}

    for name in names:
        onnx_path = os.path.join(args.models, name + ".onnx")
        entry = {"name": name}
        manifest["models"].append(entry)
        print(f"{name}: ", end="", flush=True)
        cuda_tar = os.path.join(work, name + ".cuda.tar")
        start = time.time()
        code, out, err = run([lathe, "compile", onnx_path, "--target", args.target, "--output",
                              cuda_tar], args.compile_timeout, log)
        entry["compile_s"] = round(time.time() - start, 1)
        if code != 0:
            entry["status"] = "compile failed: " + last_line(err or out)
            print(entry["status"])
            continue
        entry["kernels"] = sum(1 for line in out.splitlines() if "  grid " in line)
        cuda_params, left = make_lite(cuda_tar, os.path.join(stage, "models", name + ".cuda.tar"),
                                      work)
        entry["synthetic_weights"] = len(left)

        # The input: the exported one, by the package's input name.
        io_path = os.path.join(args.models, name + ".io.npz")
        inputs = os.path.join(stage, "models", name + ".inputs.params")
        if os.path.exists(io_path):
            tvm_params.save(inputs, {"input": np.load(io_path)["input"]})
        else:
            tvm_params.save(inputs, {})

        cpu_tar = os.path.join(work, name + ".cpu.tar")
        code, out, err = run([lathe, "compile", onnx_path, "--no-layout", "--output", cpu_tar],
                             args.compile_timeout, log)
        if code != 0:
            entry["reference"] = "none: the CPU build failed: " + last_line(err or out)
        else:
            cpu_lite = os.path.join(work, name + ".cpu.lite.tar")
            cpu_params, _ = make_lite(cpu_tar, cpu_lite, work)
            if cpu_params != cuda_params:
                differ = sorted(set(cpu_params.items()) ^ set(cuda_params.items()))[:3]
                entry["reference"] = f"none: the CPU and cuda builds take different parameters {differ}"
            else:
                reference = os.path.join(stage, "models", name + ".cpu.params")
                code, out, err = run([runner, cpu_lite, "--inputs", inputs, "--output", reference,
                                      "--repeat", "1"], 600, log)
                entry["reference"] = "cpu" if code == 0 else "none: " + last_line(err or out)
        entry["status"] = "ready"
        print(f"{entry['kernels']} kernels, reference {entry['reference']}", flush=True)

    manifest["tune"] = []
    for name in tune_models:
        out_dir = os.path.join(stage, "tune", name)
        print(f"tuning candidates of {name}: ", end="", flush=True)
        code, out, err = run([candidates, os.path.join(args.models, name + ".onnx"), out_dir,
                              "--tasks", str(args.tune_tasks), "--candidates",
                              str(args.tune_candidates), "--target", args.target],
                             args.compile_timeout, log)
        status = "ready" if code == 0 else "failed: " + last_line(err or out)
        manifest["tune"].append({"model": name, "status": status, "tasks": out.splitlines()})
        tasks = [line for line in out.splitlines() if not line.startswith(" ")]
        print(status if code else f"{len(tasks)} tasks", flush=True)

    binaries = [runner] + ([tuner] if tune_models else [])
    for binary in binaries:
        shutil.copy(binary, os.path.join(stage, "bin"))
        for lib_name, path in runtime_libraries(binary):
            shutil.copy(path, os.path.join(stage, "lib", lib_name))
    shutil.rmtree(work)
    with open(os.path.join(stage, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    shutil.copy(os.path.join(stage, "manifest.json"), os.path.join(args.out, "manifest.json"))
    bundle = os.path.join(args.out, "bundle.tar.xz")
    with tarfile.open(bundle, "w:xz", preset=6) as tar:
        tar.add(stage, arcname="bundle")
    shutil.rmtree(stage)
    size = os.path.getsize(bundle) / 2**20
    print(f"wrote {bundle}: {size:.1f} MiB ({len(manifest['models'])} models)")
    if size > 60:
        print("warning: over 60 MiB; the device tool carries 64 MiB with the working tree: "
              "prepare fewer models per call")


if __name__ == "__main__":
    main()
