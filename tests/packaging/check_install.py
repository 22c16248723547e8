#!/usr/bin/env python3
"""Installs the build into a staging root as the .deb lays it out (DESTDIR, prefix
/usr) and runs, from there, what a user of the package runs: lathe, lathe-studio
(offscreen, on a model and on a compiled package), lathe with the installed
plugins (contrib_gelu on a model using com.microsoft Gelu, and dnnl when it
was built) and a C program built against
the installed runtime SDK through find_package(LatheRuntime) and through
pkg-config. The desktop integration is checked as a file manager sees it: gio
asks the staged MIME database what a model and a package are, and the menu
entry must claim both types. Nothing may come from the
build tree: LD_LIBRARY_PATH is unset, and the staging root lies outside it.

  check_install.py --build-dir B --source-dir S --version V
                   --bindir bin --libdir lib --libexecdir libexec --includedir include
                   --datadir share

Standard library only (the python3 on PATH has no numpy); the Gelu model is
written by tests/plugins/make_gelu_model.py, run with this interpreter, which
must then be the one with onnx and torch (ctest runs it with LATHE_PYTHON)."""

import argparse
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile


class Failure(Exception):
    pass


def run(command, env, cwd=None, expect=0):
    """Runs a command; fails with its output unless it exits with `expect`."""
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != expect:
        raise Failure(f"{' '.join(map(str, command))} exited with {done.returncode}, "
                      f"expected {expect}:\n{done.stdout}{done.stderr}")
    return done.stdout


def npy_data(npz_path, name):
    """The raw data of array `name` in an .npz (a zip of .npy files)."""
    with zipfile.ZipFile(npz_path) as archive:
        npy = archive.read(name + ".npy")
    if not npy.startswith(b"\x93NUMPY"):
        raise Failure(f"{name}.npy in {npz_path} is not an .npy file")
    major = npy[6]
    header_size, offset = (struct.unpack("<H", npy[8:10])[0], 10) if major == 1 else (
        struct.unpack("<I", npy[8:12])[0], 12)
    return npy[offset + header_size:]


def npy_floats(npz_path, name):
    """Array `name` of an .npz as a list of float32 values."""
    data = npy_data(npz_path, name)
    return struct.unpack(f"<{len(data) // 4}f", data)


def normalized_error(got, want):
    """The project's error measure (core/ir/normalized_error.h): max |got - want|
    over the largest finite |want|. Infinite for arrays of different sizes and
    where they disagree on a NaN or an infinity: Python's max, like std::max,
    would keep or drop a NaN depending on where it comes."""
    if len(got) != len(want):
        return math.inf
    diff = scale = 0.0
    for g, w in zip(got, want):
        if math.isnan(g) or math.isnan(w):
            if math.isnan(g) != math.isnan(w):
                return math.inf
        elif math.isinf(w):
            if g != w:
                return math.inf
        else:
            diff, scale = max(diff, abs(g - w)), max(scale, abs(w))
    return diff if scale == 0 or math.isinf(diff) else diff / scale


def check_plugins(lathe, plugindir, source_dir, stage, sample_model, env):
    """The installed plugins load by name from the staged plugin folder: the
    example op makes a model with com.microsoft Gelu run (against PyTorch's
    outputs), and oneDNN, when it was built, runs the sample model."""
    installed = sorted(os.listdir(plugindir)) if os.path.isdir(plugindir) else []
    if "contrib_gelu.so" not in installed:
        raise Failure(f"contrib_gelu.so is not installed in {plugindir}: {installed}")
    models = os.path.join(stage, "gelu-model")
    os.makedirs(models)
    run([sys.executable, os.path.join(source_dir, "tests", "plugins", "make_gelu_model.py"),
         models], env)
    model, io = os.path.join(models, "gelu.onnx"), os.path.join(models, "gelu.io.npz")
    output = os.path.join(stage, "gelu_out.npz")
    run_staged(lathe, ["run", model, "--plugin", "contrib_gelu", "--inputs", io, "--output",
                       output], os.path.join(plugindir, "contrib_gelu.so"), env)
    for name in ("gelu", "fast_gelu", "fast_gelu_no_bias"):
        error = normalized_error(npy_floats(output, name), npy_floats(io, name))
        if not error <= 1e-4:
            raise Failure(f"lathe run --plugin contrib_gelu: output {name} is off by {error:.2e}")
    if "dnnl.so" in installed:
        run_staged(lathe, ["run", sample_model, "--plugin", "dnnl", "--output",
                           os.path.join(stage, "dnnl_out.npz")],
                   os.path.join(plugindir, "dnnl.so"), env)
    else:
        print("dnnl: not checked, the build has no dnnl plugin (CMake found no oneDNN: "
              "install libdnnl-dev and ocl-icd-opencl-dev, as packaging/install-deps.sh "
              "does, and configure again)")
    return [p[:-3] for p in installed if p.endswith(".so") and not p.startswith("lib")]


def run_staged(lathe, args, plugin, env):
    """Runs lathe; fails unless the loader's log (LD_DEBUG=files) shows that it
    mapped the staged `plugin`, not the build tree's of the same name."""
    done = subprocess.run([lathe, *args], env=dict(env, LD_DEBUG="files"), capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise Failure(f"lathe {' '.join(args)} exited with {done.returncode}:\n"
                      + "\n".join(l for l in done.stderr.splitlines() if "error" in l))
    if f"file={plugin}" not in done.stderr:
        raise Failure(f"lathe {' '.join(args)} did not load the staged {plugin}")


def expect_files(root, paths):
    missing = [p for p in paths if not os.path.isfile(os.path.join(root, p))]
    if missing:
        raise Failure("not installed: " + ", ".join(missing))


def runpath(elf, env):
    for line in run(["readelf", "-d", elf], env).splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            return line.split("[", 1)[1].rstrip("]")
    return ""


def main():
    parser = argparse.ArgumentParser()
    for option in ("build-dir", "source-dir", "version", "bindir", "libdir", "libexecdir",
                   "includedir", "datadir"):
        parser.add_argument("--" + option, required=True)
    args = parser.parse_args()
    major_minor = ".".join(args.version.split(".")[:2])

    stage = tempfile.mkdtemp(prefix="lathe-stage-")
    try:
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        # Settings and caches of the studio go to the stage, not the user's home.
        env.update(HOME=stage, XDG_CONFIG_HOME=os.path.join(stage, "config"),
                   XDG_CACHE_HOME=os.path.join(stage, "cache"), QT_QPA_PLATFORM="offscreen")
        install_env = dict(env, DESTDIR=stage)
        run(["cmake", "--install", args.build_dir, "--prefix", "/usr"], install_env)
        usr = os.path.join(stage, "usr")
        lib = args.libdir
        expect_files(usr, [
            f"{args.bindir}/lathe", f"{args.bindir}/lathe-studio",
            f"{args.libexecdir}/lathe/lathe-measure-worker",
            f"{args.libexecdir}/lathe/lathe-layout-worker",
            f"{lib}/lathe/liblathe_xgboost_ranker.so",
            f"{lib}/liblathe_runtime.so.{args.version}", f"{lib}/liblathe_runtime.so.{major_minor}",
            f"{lib}/liblathe_runtime.so", f"{args.includedir}/lathe/runtime/c_api.h",
            f"{lib}/cmake/LatheRuntime/LatheRuntimeConfig.cmake",
            f"{lib}/pkgconfig/lathe-runtime.pc",
            f"{args.datadir}/applications/lathe-studio.desktop",
            f"{args.datadir}/mime/packages/lathe.xml",
            f"{args.datadir}/icons/hicolor/scalable/apps/lathe-studio.svg",
            f"{args.datadir}/icons/hicolor/48x48/apps/lathe-studio.png"])

        # The desktop integration: a valid menu entry, and MIME types that
        # shared-mime-info compiles (it exits 0 on a broken file, leaving its types out).
        share = os.path.join(usr, args.datadir)
        desktop = os.path.join(share, "applications", "lathe-studio.desktop")
        run(["desktop-file-validate", desktop], env)
        with open(desktop) as f:
            claimed = [line.split("=", 1)[1].strip().split(";") for line in f
                       if line.startswith("MimeType=")]
        for mime_type in ("application/x-onnx", "application/x-lathe-package"):
            if not claimed or mime_type not in claimed[0]:
                raise Failure(f"lathe-studio.desktop does not claim {mime_type}: {claimed}")
        mime = os.path.join(share, "mime")
        run(["update-mime-database", mime], env)
        with open(os.path.join(mime, "globs2")) as f:
            if "application/x-onnx:*.onnx" not in f.read():
                raise Failure("update-mime-database did not register *.onnx as application/x-onnx")
        with open(os.path.join(mime, "magic"), "rb") as f:
            if b"application/x-lathe-package" not in f.read():
                raise Failure("update-mime-database did not register the package's magic")

        # The installed programs find the runtime relative to themselves, not in the build.
        for program in ("lathe", "lathe-studio"):
            path = os.path.join(usr, args.bindir, program)
            rpath = runpath(path, env)
            if args.build_dir in rpath or not rpath.startswith("$ORIGIN"):
                raise Failure(f"{path} has RUNPATH '{rpath}', not one relative to $ORIGIN")
            loaded = [line.split("=>")[1].split()[0] for line in run(["ldd", path], env).splitlines()
                      if "liblathe_runtime" in line and "=>" in line]
            if not loaded or os.path.dirname(os.path.realpath(loaded[0])) != os.path.join(usr, lib):
                raise Failure(f"{program} does not load the staged runtime but {loaded}")

        bindir = os.path.join(usr, args.bindir)
        lathe = os.path.join(bindir, "lathe")
        version = run([lathe, "--version"], env).strip()
        if version != f"lathe {args.version}":
            raise Failure(f"lathe --version says '{version}'")
        model = os.path.join(args.source_dir, "resources", "sample_cnn.onnx")
        # The default name, as the desktop integration expects it.
        run([lathe, "compile", model], env, cwd=stage)
        package = os.path.join(stage, "module.lathe.tar")
        if not os.path.isfile(package):
            raise Failure(f"lathe compile wrote no {package}: {os.listdir(stage)}")

        # What a file manager calls them: shared-mime-info through GIO, the staged
        # types first, the user's own left out.
        gio_env = dict(env, XDG_DATA_DIRS=f"{share}:/usr/share",
                       XDG_DATA_HOME=os.path.join(stage, "no-user-data"))
        plain_tar = os.path.join(stage, "plain.tar")
        shutil.copyfile(package, plain_tar)
        for path, expected_type in ((model, "application/x-onnx"),
                                    (package, "application/x-lathe-package"),
                                    (plain_tar, "application/x-tar")):
            info = run(["gio", "info", "-a", "standard::content-type", path], gio_env)
            if f"standard::content-type: {expected_type}" not in info:
                raise Failure(f"gio says {os.path.basename(path)} is not {expected_type}:\n{info}")
        reference = os.path.join(stage, "lathe_run.npz")
        run([lathe, "run", package, "--output", reference], env)
        expected = npy_data(reference, "output_0")

        plugins = check_plugins(lathe, os.path.join(usr, lib, "lathe", "plugins"),
                                args.source_dir, stage, model, env)

        # Tuning measures in lathe-measure-worker and ranks with the XGBoost module:
        # the loader's log (LD_DEBUG=files) says which files the processes mapped.
        done = subprocess.run(
            [lathe, "tune", model, "--tasks", "1", "--trials", "16", "--batch-size", "8",
             "--repeat", "1", "--min-repeat-ms", "1", "--output", os.path.join(stage, "rec.json")],
            env=dict(env, LD_DEBUG="files"), capture_output=True, text=True)
        if done.returncode != 0:
            raise Failure(f"lathe tune exited with {done.returncode}:\n{done.stdout}"
                          + "\n".join(l for l in done.stderr.splitlines() if "error" in l))
        for helper in (f"{args.libexecdir}/lathe/lathe-measure-worker",
                       f"{lib}/lathe/liblathe_xgboost_ranker.so"):
            if f"file={os.path.join(usr, helper)}" not in done.stderr and \
               f"initialize program: {os.path.join(usr, helper)}" not in done.stderr:
                raise Failure(f"lathe tune did not load the staged {helper}")

        # The studio lays the graphs out in lathe-layout-worker, found in libexec/lathe/.
        studio = os.path.join(bindir, "lathe-studio")
        run([studio, "--version"], env)
        run([studio, "--quit-when-shown", model], env)
        # A package opens through the runtime alone; a plain .tar name too.
        for path in (package, plain_tar):
            try:
                done = subprocess.run([studio, "--quit-when-shown", path], env=env,
                                      capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                raise Failure(f"lathe-studio did not quit within 2 minutes on {path}")
            if done.returncode != 0 or f"package {path} shown" not in done.stderr:
                raise Failure(f"lathe-studio did not show the package {path} (exit status "
                              f"{done.returncode}):\n{done.stderr}")

        # The SDK through CMake: the consumer's build RPATH points into the stage.
        consumer_source = os.path.join(args.source_dir, "tests", "packaging", "sdk_consumer")
        consumer_build = os.path.join(stage, "consumer-cmake")
        run(["cmake", "-S", consumer_source, "-B", consumer_build, "-G", "Ninja",
             f"-DCMAKE_PREFIX_PATH={usr}"], env)
        run(["cmake", "--build", consumer_build], env)
        # The SDK through pkg-config: -Wl,-rpath from the .pc's libdir (an install
        # in /usr needs none: the loader searches the system's lib dirs).
        pc_env = dict(env, PKG_CONFIG_PATH=os.path.join(usr, lib, "pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "lathe-runtime"], pc_env).split()
        libdir = run(["pkg-config", "--variable=libdir", "lathe-runtime"], pc_env).strip()
        consumer_pc = os.path.join(stage, "consumer-pkg-config")
        run(["cc", "-std=c99", "-Wall", "-Werror", os.path.join(consumer_source, "consumer.c"),
             "-o", consumer_pc, *flags, f"-Wl,-rpath,{libdir}"], env)

        for consumer in (os.path.join(consumer_build, "lathe_sdk_consumer"), consumer_pc):
            output = os.path.join(stage, "output.bin")
            run([consumer, package, output], env)
            with open(output, "rb") as f:
                if f.read() != expected:
                    raise Failure(f"{consumer}'s output differs from lathe run's")
            os.remove(output)
        print(f"installed into {stage}: lathe, lathe-studio, the plugins {', '.join(plugins)} "
              "and two SDK builds ran from there")
    except Failure as failure:
        print(f"check_install: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
