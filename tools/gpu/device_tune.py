"""GPU tuning in the device check (device_check.py calls it after the zoo):
for each model prepared with --tune, each task's candidates (built here by
lathe_gpu_candidates) measured by lathe_device_tune with CUDA events, in
processes of their own (a kernel that faults ends its process; the next
starts from the candidate after it), within a time budget. Per task: the
untuned schedule's ms, the best candidate's (its outputs matching the
untuned one's), and which schedule; per model: the estimated tuned time,
the whole run's median less each task's saving times its weight. The
untuned and best candidates' tuning records go to
OUT/gpu_tuning_records.json, for `lathe compile --target cuda
--tuning-records` to build the tuned model in a later session."""

import json
import os
import subprocess
import time

TOLERANCE = 1e-4


# A run of lathe_device_tune that takes longer has a kernel that hangs: the
# candidate after the last one it reported is skipped.
RUN_TIMEOUT_S = 60


def measure_task(bundle, task_dir, deadline):
    """Each candidate's line from lathe_device_tune, in as many runs as it takes:
    a run that ends early (a fault, a crash, a hang) is followed by one that
    starts after the candidate that ended it."""
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(bundle, "lib"))
    tool = os.path.join(bundle, "bin", "lathe_device_tune")
    with open(os.path.join(task_dir, "task.json")) as f:
        count = len(json.load(f)["candidates"])
    results, start, note = {}, 1, None
    while start < count:
        left = deadline - time.time()
        if left < 5:
            note = "time budget spent"
            break
        try:
            p = subprocess.run([tool, task_dir, "--from", str(start)], capture_output=True,
                               text=True, timeout=min(left, RUN_TIMEOUT_S), env=env)
            out, code, err = p.stdout, p.returncode, p.stderr
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            code, err = "timeout", ""
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        for r in lines:
            results[r["index"]] = r
        if code == 0:
            break
        if 0 not in results:  # no driver, or the untuned kernel failed: no reference
            note = (err or f"exit status {code}").strip().splitlines()[-1][:300]
            break
        reached = max([r["index"] for r in lines if r["index"] > 0], default=start - 1)
        if lines and "fail" in lines[-1]:
            start = reached + 1  # it said which one failed
        else:  # it died or hung in the one after the last it reported
            why = "hung (no result in %d s)" % RUN_TIMEOUT_S if code == "timeout" else \
                f"the process ended with status {code}: " + (err.strip().splitlines() or [""])[-1]
            results[reached + 1] = {"index": reached + 1, "fail": why[:300]}
            start = reached + 2
    return results, count, note


def record_line(candidate, result):
    record = dict(candidate["record"])
    record["costs_ms"] = [result["ms"]]
    record["error"] = None
    record["finished"] = record["started"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return json.dumps(record)


def tune_models(bundle, manifest, lathe_ms, budget_s, records_path):
    """Rows per task and per model; `lathe_ms` maps a model to its untuned median ms."""
    deadline = time.time() + budget_s
    tasks, models = [], []
    records = open(records_path, "a")
    for entry in manifest.get("tune", []):
        name = entry["model"]
        root = os.path.join(bundle, "tune", name)
        if entry.get("status") != "ready" or not os.path.isdir(root):
            models.append({"model": name, "status": entry.get("status", "not prepared")})
            continue
        saving, measured = 0.0, 0
        for task_name in sorted(os.listdir(root)):
            task_dir = os.path.join(root, task_name)
            with open(os.path.join(task_dir, "task.json")) as f:
                task = json.load(f)
            results, count, note = measure_task(bundle, task_dir, deadline)
            base = results.get(0, {}).get("ms")
            good = [r for i, r in results.items() if i > 0 and "ms" in r and
                    r.get("error", 1) <= TOLERANCE]
            best = min(good, key=lambda r: r["ms"]) if good else None
            row = {"model": name, "task": task["task"], "kernel": task["kernel"],
                   "signature": task["signature"], "weight": task["weight"],
                   "candidates": count, "measured": len(results),
                   "wrong": sum(1 for r in results.values() if r.get("error", 0) > TOLERANCE),
                   "failed": sum(1 for r in results.values() if "fail" in r),
                   "untuned_ms": base, "note": note}
            if base:
                records.write(record_line(task["candidates"][0], results[0]) + "\n")
            if best:
                records.write(record_line(task["candidates"][best["index"]], best) + "\n")
            if best and base and best["ms"] < base:
                cand = task["candidates"][best["index"]]
                row.update(best_ms=best["ms"], space=cand["space"], config=cand["config"],
                           schedule=cand["schedule"])
                saving += (base - best["ms"]) * task["weight"]
            elif base:
                row.update(best_ms=base, space="untuned", config="")
            if base:
                measured += 1
            tasks.append(row)
            print(f"tune {name} task {task['task']}: untuned {base} ms, best "
                  f"{row.get('best_ms')} ms ({row.get('space')}) {note or ''}", flush=True)
        untuned = lathe_ms.get(name)
        models.append({"model": name, "status": "tuned" if measured else "not measured",
                       "tasks_measured": measured, "untuned_ms": untuned,
                       "estimated_tuned_ms": untuned - saving if untuned and measured else None,
                       "saving_ms": saving})
    records.close()
    return tasks, models


def markdown(tasks, models, torch_ms):
    fmt = lambda v: f"{v:.4f}" if isinstance(v, float) else "" if v is None else str(v)  # noqa: E731
    lines = ["", "### GPU tuning (candidates built here, measured with CUDA events)", "",
             "| model | task | weight | candidates measured | wrong / failed | untuned ms | "
             "best ms | speed-up | from |", "|---|---|---|---|---|---|---|---|---|"]
    for t in tasks:
        speed = (t["untuned_ms"] / t["best_ms"]) if t.get("best_ms") and t.get("untuned_ms") else None
        lines.append(f"| {t['model']} | {t['task']} {t['kernel'][:40]} | {t['weight']} | "
                     f"{t['measured']}/{t['candidates']} | {t['wrong']} / {t['failed']} | "
                     f"{fmt(t.get('untuned_ms'))} | {fmt(t.get('best_ms'))} | "
                     f"{f'{speed:.2f}x' if speed else ''} | {t.get('space') or t.get('note') or ''} |")
    lines += ["", "| model | untuned ms (whole run) | estimated tuned ms | PyTorch eager ms |",
              "|---|---|---|---|"]
    for m in models:
        lines.append(f"| {m['model']} | {fmt(m.get('untuned_ms'))} | "
                     f"{fmt(m.get('estimated_tuned_ms'))} | {fmt(torch_ms.get(m['model']))} | "
                     + ("" if m["status"] == "tuned" else m["status"]))
    lines.append("")
    lines.append("Estimated tuned = the untuned run's median less, per tuned task, (untuned − best) "
                 "kernel ms × the task's weight; each best matched the untuned kernel's outputs "
                 f"within {TOLERANCE:g} of their scale.")
    return lines
