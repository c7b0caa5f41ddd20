"""How right `tandem qualify` is: its predictions from plugin-off runs against the measured
plugin-on runs of the same SQL executions.

    bench/qualify_accuracy.py --log RUN_DIR[:LABEL] ... [--target cpu|FILE] [--fit TRAIN_LABEL,...]
        [--out bench/results/qualify_accuracy_cpu]

Each RUN_DIR is an output folder of bench/spark_tpch_bench.py (its event log under eventlog/,
its runs in runs.csv: every case ran with the plugin off ("vanilla") and on ("tandem") in the
same session, alternating). The truth for a case is the ratio of its medians, vanilla / tandem,
of submit-to-done times from the event log. The prediction is `tandem qualify`'s speedup for
each vanilla run of the case (their median), from the same event log: qualify sees the plan,
stages and tasks of the vanilla runs only.

Reported per target: the median and 90th percentile of |predicted / measured - 1|, the share
of cases within 30 %, and the precision and recall of the "recommended" category (truth:
measured speedup at least the target's recommend_at, 1.3). With --fit, the model's figures
are chosen on the runs labelled TRAIN (a grid over the speedup on Tandem's work, the fixed cost
per task and per crossing row) and the table reports the held-out runs apart from the training
ones, so the published error is not the fit's own. The decimal-aggregate class of the model
(decimal_aggregate_speedup) is not fitted: with it the held-out errors grew (it fitted TPC-H
Q1 and Q17 of the training runs); it follows aggregate_speedup.
"""
import argparse
import csv
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_dirs(args):
    out = []
    for item in args.log:
        path, _, label = item.partition(":")
        logs = glob.glob(os.path.join(path, "eventlog", "*"))
        if len(logs) != 1:
            sys.exit(f"{path}: expected one event log under eventlog/, found {len(logs)}")
        out.append({"dir": path, "label": label or os.path.basename(path.rstrip("/")),
                    "log": logs[0]})
    return out


def measured(run):
    """case -> {"vanilla": [ms...], "tandem": [ms...]} from runs.csv (timed rounds only)."""
    cases = {}
    with open(os.path.join(run["dir"], "runs.csv")) as f:
        for r in csv.DictReader(f):
            if r["phase"] != "rep" or not r["ms"] or r["error"]:
                continue
            cases.setdefault(r["case"], {"vanilla": [], "tandem": []})[r["mode"]].append(
                float(r["ms"]))
    return cases


def qualify(run, target, tandem):
    r = subprocess.run([tandem, "qualify", run["log"], "--target", target, "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"tandem qualify {run['log']}: {r.stderr.strip()}")
    out = {}
    for app in json.loads(r.stdout)["applications"]:
        for e in app["executions"]:
            words = e["description"].split()
            if len(words) >= 3 and words[1] == "vanilla" and words[2].startswith("rep"):
                out.setdefault(words[0], []).append(e)
    return out


def evaluate(runs, target, tandem, recommend_at=1.3):
    rows = []
    for run in runs:
        truth = measured(run)
        predicted = qualify(run, target, tandem)
        for case, modes in sorted(truth.items()):
            if not modes["vanilla"] or not modes["tandem"] or case not in predicted:
                continue
            actual = statistics.median(modes["vanilla"]) / statistics.median(modes["tandem"])
            preds = predicted[case]
            # A round may hold several executions (a write and the commands around it): the
            # round's predicted time is their sum, as the measured time is the round's wall.
            rounds = {}
            for e in preds:
                r = rounds.setdefault(e["description"].split()[2], [0.0, 0.0, 0.0, 0.0])
                r[0] += e["measured_ms"]
                r[1] += e["predicted_ms"]
                r[2] += e["predicted_range_ms"][0]
                r[3] += e["predicted_range_ms"][1]
            speed = statistics.median(m / p for m, p, _, _ in rounds.values())
            low = statistics.median(m / hi for m, _, _, hi in rounds.values())
            high = statistics.median(m / lo for m, _, lo, _ in rounds.values())
            category = ("recommended" if low >= recommend_at
                        else "not recommended" if high < 1 else "maybe")
            rows.append({"label": run["label"], "case": case, "actual": actual,
                         "predicted": speed, "low": low, "high": high,
                         "category": category,
                         "error": speed / actual - 1, "in_range": low <= actual <= high,
                         "truth_recommended": actual >= recommend_at,
                         "reasons": preds[0]["reasons"][:2]})
    return rows


def summary(rows):
    if not rows:
        return {"n": 0}
    errors = sorted(abs(r["error"]) for r in rows)
    p90 = errors[min(len(errors) - 1, math.ceil(0.9 * len(errors)) - 1)]
    recommended = [r for r in rows if r["category"] == "recommended"]
    truly = [r for r in rows if r["truth_recommended"]]
    hits = [r for r in recommended if r["truth_recommended"]]
    return {"n": len(rows), "median_abs_error": statistics.median(errors), "p90_abs_error": p90,
            "within_30pct": sum(e <= 0.3 for e in errors) / len(errors),
            "in_range": sum(r["in_range"] for r in rows) / len(rows),
            "recommended": len(recommended),
            "precision": len(hits) / len(recommended) if recommended else float("nan"),
            "recall": len(hits) / len(truly) if truly else float("nan")}


def model_time(e, cal):
    """qualify's predicted time of one execution from its model inputs (wall_model.cc for a CPU
    target, mirrored here so the fit can try many figures without re-reading the logs)."""
    inputs = e["model_inputs"]
    if inputs["ran_in_tandem"]:
        return e["measured_ms"]
    saved = 0.0
    for s in inputs["stages"]:
        if s["wall_ms"] <= 0 or s["run_ms"] <= 0:
            continue
        tandem = (s["tandem_scan_ms"] + s["tandem_aggregate_ms"] + s["tandem_wide_aggregate_ms"]
                  + s["tandem_decimal_aggregate_ms"] + s["tandem_sort_ms"] + s["tandem_other_ms"])
        run = (s["shuffle_write_ms"] * cal["shuffle_write_factor"] + s["fetch_wait_ms"]
               + s["python_ms"] + s["spark_ms"])
        gpu = cal.get("gpu", False)
        small = gpu and tandem < cal["min_gpu_work_ms"]
        if tandem > 0:
            if small:
                work = tandem / cal["cpu_speedup"]
            else:
                work = (s["tandem_scan_ms"] / cal["scan_speedup"]
                        + s["tandem_aggregate_ms"] / cal["aggregate_speedup"]
                        + s["tandem_wide_aggregate_ms"] / cal["wide_aggregate_speedup"]
                        + s["tandem_decimal_aggregate_ms"]
                        / cal.get("decimal_aggregate_speedup", cal["aggregate_speedup"])
                        + s["tandem_sort_ms"] / cal["sort_speedup"]
                        + s["tandem_other_ms"] / cal["speedup"])
            fixed = cal["task_fixed_ms"]
            transfer = 0.0
            if gpu and not small:
                fixed += cal["gpu_task_fixed_ms"]
                transfer = (s["input_bytes"] + s["shuffle_read_bytes"]) / cal["pcie_bytes_per_ms"]
            run += (work + s["tasks"] * fixed + transfer
                    + s["rows_crossing"] * cal["row_crossing_ns"] / 1e6)
        wall = s["wall_ms"] - (s["run_ms"] - run) / s["parallelism"]
        wall = max(wall, 1.0) + cal["stage_planning_ms"] * (1 if tandem > 0 else 0)
        saved += (s["wall_ms"] - wall) * (s["exclusive_ms"] / s["wall_ms"])
    return max(1.0, e["measured_ms"] - saved)


FIGURES = {"scan_speedup": [1, 1.5, 2, 3, 4, 6, 8],
           "aggregate_speedup": [1.5, 2, 3, 4, 6, 8, 12, 16, 24],
           "wide_aggregate_speedup": [1, 1.25, 1.5, 2, 3, 4, 6],
           "sort_speedup": [1, 1.5, 2, 3, 4, 6],
           "speedup": [1, 1.25, 1.5, 2, 2.5, 3, 4, 6],
           "task_fixed_ms": [0, 2, 5, 10, 20, 40],
           "row_crossing_ns": [0, 50, 150, 400, 1000],
           "shuffle_write_factor": [0.6, 0.8, 1.0, 1.2, 1.5],
           "stage_planning_ms": [0, 2, 5, 10, 20]}


def descend(cal, figures, score):
    """Coordinate descent: each figure in turn takes the listed value that lowers the score."""
    best = score(cal)
    for _ in range(4):
        for key, values in figures.items():
            for v in values:
                trial = dict(cal, **{key: v})
                sc = score(trial)
                if sc < best - 1e-9:
                    best, cal = sc, trial
    return cal


def fit(runs, base, tandem):
    """Model figures that minimise the median |log(predicted / measured speedup)| over the
    cases of `runs` (coordinate descent over FIGURES' grids from the built-in figures), with the
    error range from the training residuals."""
    cases = []
    for run in runs:
        truth = measured(run)
        predicted = qualify(run, "cpu", tandem)
        for case, modes in truth.items():
            if modes["vanilla"] and modes["tandem"] and case in predicted:
                actual = statistics.median(modes["vanilla"]) / statistics.median(modes["tandem"])
                cases.append((actual, predicted[case]))

    def score(cal):
        errs = []
        for actual, execs in cases:
            speed = statistics.median(e["measured_ms"] / model_time(e, cal) for e in execs)
            errs.append(abs(math.log(speed / actual)))
        return statistics.median(errs) + 0.25 * statistics.mean(errs)

    cal = dict(base, scan_speedup=2, aggregate_speedup=2, wide_aggregate_speedup=2,
               sort_speedup=2, speedup=2,
               task_fixed_ms=5, row_crossing_ns=150, shuffle_write_factor=1.0,
               stage_planning_ms=2)
    cal = descend(cal, FIGURES, score)
    residuals = []
    for actual, execs in cases:
        speed = statistics.median(e["measured_ms"] / model_time(e, cal) for e in execs)
        residuals.append(actual / speed - 1)  # predicted time / measured time - 1
    residuals.sort()
    k = len(residuals)
    cal["error_p10"] = residuals[max(0, int(0.1 * k))]
    cal["error_p90"] = residuals[min(k - 1, int(math.ceil(0.9 * k)) - 1)]
    return cal


def h200_truth(path):
    """Query -> tandem cpu / tandem auto on the H200 from a `tandem bench tpch` results.csv
    (files, not tables held in memory): Tandem's measured gain from the GPU there."""
    cells = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["engine"] == "tandem" and r["status"] == "ok" and r["mode"] in ("cpu", "auto"):
                cells.setdefault(r["group"].lower(), {})[r["mode"]] = float(r["median_ms"])
    return {q: m["cpu"] / m["auto"] for q, m in cells.items() if "cpu" in m and "auto" in m}


def evaluate_h200(run, cpu_target, h200_target, truth, tandem):
    """Per TPC-H query of `run` (the same scale as the H200 runs): qualify's predicted gain of
    the GPU over Tandem's CPU path (its cpu-target time / its h200-target time for the same
    plugin-off executions) against the H200's measured tandem cpu / auto."""
    cpu = qualify(run, cpu_target, tandem)
    gpu = qualify(run, h200_target, tandem)
    rows = []
    for case in sorted(truth):
        if case not in cpu or case not in gpu:
            continue
        gain = statistics.median(
            c["predicted_ms"] / g["predicted_ms"] for c, g in zip(cpu[case], gpu[case]))
        rows.append({"label": run["label"] + " on H200", "case": case, "actual": truth[case],
                     "predicted": gain, "low": gain, "high": gain, "category": "",
                     "error": gain / truth[case] - 1, "in_range": False,
                     "truth_recommended": False, "reasons": []})
    return rows


H200_FIGURES = {"scan_speedup": [1, 1.5, 2, 3, 4, 6, 8],
                "aggregate_speedup": [4, 8, 12, 16, 24, 32, 48],
                "wide_aggregate_speedup": [2, 3, 4, 6, 8, 12, 16],
                "sort_speedup": [1, 2, 4, 8, 16],
                "speedup": [1.5, 2, 3, 4, 6, 8, 12],
                "gpu_task_fixed_ms": [0, 5, 10, 20, 40],
                "min_gpu_work_ms": [0, 50, 200, 1000],
                "pcie_bytes_per_ms": [5e6, 10e6, 20e6, 40e6]}


def fit_h200(run, cpu_cal, truth, train, tandem):
    """h200 figures whose predicted gain over `cpu_cal` (the CPU target's figures) best matches
    the H200's measured tandem cpu / auto on the queries in `train`."""
    execs = qualify(run, "cpu", tandem)
    cases = [(truth[q], execs[q]) for q in sorted(truth) if q in execs and q in train]

    def gain(cal, es):
        return statistics.median(model_time(e, cpu_cal) / model_time(e, cal) for e in es)

    def score(cal):
        errs = [abs(math.log(gain(cal, es) / actual)) for actual, es in cases]
        return statistics.median(errs) + 0.25 * statistics.mean(errs)

    cal = dict(cpu_cal, name="h200 (fitted)", gpu=True, cpu_speedup=cpu_cal["speedup"],
               scan_speedup=2, aggregate_speedup=8, wide_aggregate_speedup=4, sort_speedup=4,
               speedup=4, gpu_task_fixed_ms=20, min_gpu_work_ms=200, pcie_bytes_per_ms=20e6)
    cal = descend(cal, H200_FIGURES, score)
    return cal


def fmt(v, pct=False):
    if isinstance(v, float) and math.isnan(v):
        return "n/a"
    return f"{100 * v:.0f} %" if pct else (f"{v:.2f}" if isinstance(v, float) else str(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", action="append", required=True, metavar="RUN_DIR[:LABEL]")
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--fit", default="", help="labels of the runs to fit the model on")
    ap.add_argument("--tandem", default=os.path.join(ROOT, "build", "default", "tandem"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--h200", default=None, metavar="RESULTS_CSV",
                    help="a tandem bench tpch results.csv from the H200 (files): evaluate the "
                         "h200 target's gain over Tandem's CPU path on the run labelled by "
                         "--h200-run")
    ap.add_argument("--h200-run", default=None, help="label of the run at the H200 runs' scale")
    ap.add_argument("--h200-target", default="h200")
    args = ap.parse_args()
    runs = run_dirs(args)
    target = args.target
    train_labels = set(filter(None, args.fit.split(",")))
    calibration = None
    if train_labels:
        train = [r for r in runs if r["label"] in train_labels]
        if not train:
            sys.exit(f"--fit {args.fit}: no run has those labels")
        calibration = fit(train, {"name": "cpu (fitted)"}, args.tandem)
        out_dir = args.out or tempfile.mkdtemp()
        os.makedirs(out_dir, exist_ok=True)
        target = os.path.join(out_dir, "calibration.json")
        with open(target, "w") as f:
            json.dump(calibration, f, indent=1)
    rows = evaluate(runs, target, args.tandem)
    groups = [("all", rows)]
    if train_labels:
        groups = [("held out", [r for r in rows if r["label"] not in train_labels]),
                  ("training", [r for r in rows if r["label"] in train_labels]), ("all", rows)]
    lines = ["# `tandem qualify` against measured plugin-on runs", "",
             f"- target: `{args.target}`" + (f", fitted on {sorted(train_labels)}: "
                                             f"`{json.dumps(calibration)}`" if calibration else ""),
             "- truth: median vanilla / median tandem of each case's timed rounds (event log "
             "submit-to-done); prediction: median over the vanilla rounds of qualify's speedup for each round (its executions summed)",
             "", "| runs | cases | median abs error | p90 abs error | within 30 % | truth in "
             "range | predicted recommended | precision | recall |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, rs in groups:
        s = summary(rs)
        if not s["n"]:
            continue
        lines.append(f"| {name} | {s['n']} | {fmt(s['median_abs_error'], True)} | "
                     f"{fmt(s['p90_abs_error'], True)} | {fmt(s['within_30pct'], True)} | "
                     f"{fmt(s['in_range'], True)} | {s['recommended']} | "
                     f"{fmt(s['precision'], True)} | {fmt(s['recall'], True)} |")
    lines += ["", "| run | case | measured | predicted | range | error | category | first reason |",
              "|---|---|---:|---:|---:|---:|---|---|"]
    for r in sorted(rows, key=lambda r: -abs(r["error"])):
        lines.append(f"| {r['label']} | {r['case']} | {r['actual']:.2f}x | {r['predicted']:.2f}x "
                     f"| {r['low']:.2f}-{r['high']:.2f}x | {100 * r['error']:+.0f} % | "
                     f"{r['category']} | {(r['reasons'] or [''])[0]} |")
    if args.h200:
        [run] = [r for r in runs if r["label"] == args.h200_run]
        truth = h200_truth(args.h200)
        h200_target = args.h200_target
        train_queries = set()
        if calibration is not None:
            # Fitted on the odd queries, reported apart on the even ones.
            train_queries = {q for q in truth if int(q[1:]) % 2 == 1}
            h200_cal = fit_h200(run, calibration, truth, train_queries, args.tandem)
            h200_target = os.path.join(out_dir, "calibration_h200.json")
            with open(h200_target, "w") as f:
                json.dump(h200_cal, f, indent=1)
        hrows = evaluate_h200(run, target, h200_target, truth, args.tandem)
        for r in hrows:
            r["label"] = "training" if r["case"] in train_queries else "held out"
        lines += ["", f"## The h200 target: gain over Tandem's CPU path (`{h200_target}`) "
                  f"against `{args.h200}` (tandem cpu / auto from files on the H200)", ""]
        for name in ("held out", "training", "all"):
            rs = [r for r in hrows if name == "all" or r["label"] == name]
            s = summary(rs)
            if s["n"] and (name != "all" or train_queries):
                lines.append(f"- {name}: {s['n']} queries, median abs error "
                             f"{fmt(s['median_abs_error'], True)}, p90 "
                             f"{fmt(s['p90_abs_error'], True)}, within 30 %: "
                             f"{fmt(s['within_30pct'], True)}")
        lines += ["", "| query | fit | measured gain | predicted gain | error |",
                  "|---|---|---:|---:|---:|"]
        for r in sorted(hrows, key=lambda r: -abs(r["error"])):
            lines.append(f"| {r['case']} | {r['label']} | {r['actual']:.2f}x | "
                         f"{r['predicted']:.2f}x | {100 * r['error']:+.0f} % |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "accuracy.md"), "w") as f:
            f.write(text)
        with open(os.path.join(args.out, "accuracy.json"), "w") as f:
            json.dump({"groups": {n: summary(rs) for n, rs in groups}, "cases": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
