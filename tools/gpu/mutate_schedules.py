#!/usr/bin/env python3
"""Mutates the default schedules of a model's kernels and runs each mutant.

Every mutant must either be refused with an error (exit 1: a parse error, a
schedule error, the verifier) or compute what the reference executor does;
a wrong result, another exit status or a signal is a bug, and the mutant is
saved under --out with what `lathe schedule` printed. With --target cuda the
kernels run on the GPU simulator (`--simulate-gpu`), with llvm on this CPU
(`--measure --repeat 1`).

Mutations, one to three a mutant, over the schedule text's statements: a
split factor changed, a thread tag changed, a statement dropped, repeated or
moved, a storage scope swapped ("shared" / "local"), a bind of a random loop
added, an integer changed.

    tools/gpu/mutate_schedules.py --lathe build/bin/lathe /tmp/zoo/resnet18.onnx:0,2,8 \\
        /tmp/zoo/transformer_block.onnx --count 10 --seed 1
"""
import argparse
import os
import random
import re
import subprocess
import sys

TAGS = ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z",
        "vthread"]


def tasks_of(lathe, model, target):
    out = subprocess.run([lathe, "tasks", model, "--target", target], capture_output=True,
                         text=True, check=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if re.match(r"^\d+  ", line)]


def default_schedule(lathe, model, task, target):
    return subprocess.run([lathe, "schedule", model, "--task", str(task), "--target", target],
                          capture_output=True, text=True, check=True).stdout


def mutate(text, rng):
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    for _ in range(rng.randint(1, 3)):
        if len(lines) < 2:
            break
        i = rng.randrange(1, len(lines))  # never the create_schedule line
        line = lines[i]
        r = rng.random()
        if r < 0.2:
            lines[i] = re.sub(r"factor=\d+", lambda _: "factor=%d" % rng.choice(
                [1, 2, 3, 5, 7, 16, 64, 1000, 4096]), line)
        elif r < 0.4:
            lines[i] = re.sub(r'thread_axis\("[^"]+"\)',
                              lambda _: 'thread_axis("%s")' % rng.choice(TAGS), line)
        elif r < 0.55:
            del lines[i]
        elif r < 0.7:
            lines.insert(rng.randrange(1, len(lines)), line)
        elif r < 0.8:
            lines[i] = (line.replace('"shared"', '"local"') if '"shared"' in line else
                        line.replace('"local"', '"shared"'))
        elif r < 0.9:
            j = rng.randrange(1, len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif r < 0.95:
            text_now = "\n".join(lines)
            bound = re.findall(r"^([A-Za-z_0-9]+(?:, [A-Za-z_0-9]+)*) = s\[", text_now, re.M)
            axes = [a for names in bound for a in names.split(", ")]
            stages = re.findall(r"s\[([A-Za-z_0-9]+)\]", text_now)
            if axes and stages:
                lines.insert(rng.randrange(1, len(lines) + 1),
                             's[%s].bind(%s, te.thread_axis("%s"))' %
                             (rng.choice(stages), rng.choice(axes), rng.choice(TAGS)))
        else:
            lines[i] = re.sub(r"\b(\d+)\b", lambda _: str(rng.choice([0, 1, 2, 33, 100000])),
                              line, count=1)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="MODEL.onnx or MODEL.onnx:TASK,TASK,...")
    parser.add_argument("--lathe", default="build/bin/lathe")
    parser.add_argument("--target", default="cuda", choices=["cuda", "llvm"])
    parser.add_argument("--count", type=int, default=10, help="mutants of each kernel")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="mutants", help="where failing mutants are saved")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    run_flags = ["--simulate-gpu"] if args.target == "cuda" else ["--measure", "--repeat", "1"]
    outcomes = {"ran": 0, "refused": 0, "bugs": 0}
    for spec in args.models:
        model, _, listed = spec.partition(":")
        tasks = [int(t) for t in listed.split(",")] if listed else tasks_of(
            args.lathe, model, args.target)
        for task in tasks:
            base = default_schedule(args.lathe, model, task, args.target)
            for _ in range(args.count):
                text = mutate(base, rng)
                os.makedirs(args.out, exist_ok=True)
                path = os.path.join(args.out, "mutant.py")
                with open(path, "w") as f:
                    f.write(text)
                p = subprocess.run([args.lathe, "schedule", model, "--task", str(task),
                                    "--target", args.target, "--schedule", path] + run_flags,
                                   capture_output=True, text=True, timeout=600)
                matched = p.returncode == 0 and "(ok)" in p.stdout
                refused = p.returncode == 1 and "signal" not in p.stderr
                outcomes["ran" if matched else "refused" if refused else "bugs"] += 1
                if not matched and not refused:
                    where = os.path.join(args.out, "bug%d" % outcomes["bugs"])
                    os.makedirs(where, exist_ok=True)
                    with open(os.path.join(where, "schedule.py"), "w") as f:
                        f.write(text)
                    with open(os.path.join(where, "output.txt"), "w") as f:
                        f.write("%s --task %d: exit %d\n%s\n%s" % (model, task, p.returncode,
                                                                  p.stdout, p.stderr))
                    print("bug: %s task %d, saved in %s" % (model, task, where))
    print("%d mutants: %d ran and matched the reference, %d refused with an error, %d bugs" %
          (sum(outcomes.values()), outcomes["ran"], outcomes["refused"], outcomes["bugs"]))
    return 1 if outcomes["bugs"] else 0


if __name__ == "__main__":
    sys.exit(main())
