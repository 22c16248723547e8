#!/usr/bin/python3
"""Builds the fuzz targets' seed corpora, one folder per target.

    make_seeds.py OUT_DIR [BUILD_DIR]

BUILD_DIR is a normal (GCC) build tree: its models/ (the test models) seed the
importer and its bin/lathe compiles the package seeds; without it those seeds
are left out and the script says so. Needs Debian's python3-onnx and numpy.
"""
import io
import os
import re
import sys
import tarfile
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SOURCE = Path(__file__).resolve().parent.parent
ONNX_TESTDATA = Path("/usr/share/libonnx-testdata/data")  # Debian's libonnx-testdata
SMALL = 64 * 1024  # larger seeds slow every execution down


def write(folder: Path, name: str, data: bytes):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def slim(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with each initializer over 64 elements turned into a graph input
    of the same type: the graph and its shapes stay, the weights go."""
    graph = model.graph
    kept = []
    for init in graph.initializer:
        if int(np.prod(init.dims)) <= 64:
            kept.append(init)
            continue
        if not any(i.name == init.name for i in graph.input):
            graph.input.append(helper.make_tensor_value_info(init.name, init.data_type, init.dims))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return model


def onnx_seeds(out: Path, build: Path):
    count = 0
    for model in sorted(ONNX_TESTDATA.glob("*/*/model.onnx")):
        if model.stat().st_size <= SMALL:
            write(out, f"{model.parent.parent.name}_{model.parent.name}.onnx", model.read_bytes())
            count += 1
    if not count:
        print(f"make_seeds: no {ONNX_TESTDATA} (apt install libonnx-testdata)", file=sys.stderr)
    for model in sorted((build / "models").glob("*.onnx")):
        write(out, "model_" + model.name, slim(onnx.load(model)).SerializeToString())
        count += 1
    return count


def schedule_texts():
    """Schedule texts from the tests' raw strings and the benchmarks' schedules."""
    texts = []
    for test in ["tests/schedule/tst_schedule_text.cpp", "tests/studio/tst_schedule_editor.cpp"]:
        for text in re.findall(r'R"\((.*?)\)"', (SOURCE / test).read_text(), re.S):
            if "create_schedule" in text:
                texts.append(text)
    for py in sorted((SOURCE / "benchmarks/schedules").glob("*.py")):
        texts.append(py.read_text())
    return texts


def schedule_seeds(out: Path):
    # The first byte picks fuzz_schedule_text's compute (0 gemm, 1 matmul,
    # 2 chain, 3 conv); each text goes with all four: the fuzzer keeps those
    # that reach new code.
    texts = schedule_texts()
    for i, text in enumerate(texts):
        for compute in range(4):
            write(out, f"text{i}_{compute}.py", bytes([compute]) + text.encode())
    return len(texts) * 4


def npz_seeds(out: Path, build: Path):
    arrays = {
        "f4": np.arange(6, dtype="<f4").reshape(2, 3),
        "f8": np.linspace(0, 1, 5),
        "i8": np.array([[1, -2]], dtype="<i8"),
        "i4": np.arange(4, dtype="<i4"),
        "b1": np.array([True, False]),
        "u1": np.arange(3, dtype="u1"),
        "f2": np.ones((2, 2), dtype="<f2"),
        "scalar": np.float32(3.5),
        "empty": np.zeros((0, 4), dtype="<f4"),
    }
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a)
        write(out, f"{name}.npy", buf.getvalue())
    for compressed in [False, True]:
        buf = io.BytesIO()
        (np.savez_compressed if compressed else np.savez)(buf, **arrays)
        write(out, f"all{'_compressed' if compressed else ''}.npz", buf.getvalue())
        buf = io.BytesIO()
        (np.savez_compressed if compressed else np.savez)(buf, input=arrays["f4"])
        write(out, f"one{'_compressed' if compressed else ''}.npz", buf.getvalue())
    count = len(arrays) + 4
    for npz in sorted((build / "models").glob("*.io.npz")):
        if npz.stat().st_size <= SMALL:
            write(out, npz.name, npz.read_bytes())
            count += 1
    return count


def tiny_models():
    """Small models with weights, so that packages carry a few parameters."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype("f4"), "conv.weight")
    b = numpy_helper.from_array(rng.standard_normal(4).astype("f4"), "conv.bias")
    fc = numpy_helper.from_array(rng.standard_normal((10, 64)).astype("f4"), "fc.weight")
    conv = helper.make_graph(
        [helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("Gemm", ["f", "fc.weight"], ["y"], transB=1)],
        "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], [w, b, fc])
    add = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Sigmoid", ["s"], ["y"])],
        "add", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 5]) for n in "ab"],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])])
    for graph in [conv, add]:
        yield graph.name, helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def package_seeds(out: Path, build: Path):
    lathe = build / "bin" / "lathe"
    if not lathe.exists():
        print(f"make_seeds: no {lathe}: no package seeds (build the normal tree first)",
              file=sys.stderr)
        return 0
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, model in tiny_models():
            path = Path(tmp) / f"{name}.onnx"
            onnx.save(model, path)
            package = Path(tmp) / f"{name}.tar"
            subprocess.run([str(lathe), "compile", str(path), "--output", str(package)],
                           check=True, stdout=subprocess.DEVNULL)
            members = {}
            with tarfile.open(package) as tar:
                for member in tar.getmembers():
                    members[member.name.removeprefix("./")] = tar.extractfile(member).read()
            # The loader parses mod.json and mod.params; mod.so only has to be
            # there (fuzz_package never dlopens it), so an empty one keeps the
            # seed small.
            members["mod.so"] = b""
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
                for member, data in members.items():
                    info = tarfile.TarInfo(member)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
            write(out, f"{name}.tar", buf.getvalue())
            write(out, f"{name}.json", members["mod.json"])
            write(out, f"{name}.params", members["mod.params"])
            count += 3
    return count


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    build = Path(sys.argv[2]) if len(sys.argv) == 3 else SOURCE / "build"
    counts = {
        "fuzz_onnx_import": onnx_seeds(out / "fuzz_onnx_import", build),
        "fuzz_schedule_text": schedule_seeds(out / "fuzz_schedule_text"),
        "fuzz_npz": npz_seeds(out / "fuzz_npz", build),
        "fuzz_package": package_seeds(out / "fuzz_package", build),
    }
    for target, count in counts.items():
        print(f"make_seeds: {count} seeds for {target} in {out / target}")


if __name__ == "__main__":
    main()
