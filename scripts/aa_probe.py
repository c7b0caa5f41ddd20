#!/usr/bin/env python3
"""An A/A probe for the GPU machine: does a process that has started CUDA run the same all-CPU
plan slower? Arms, interleaved round by round, each a fresh `tandem sql` process running the
query WARMUPS + 1 times (the last run is measured):
  cpu        tandem.sql.device=cpu: CUDA never starts
  auto-cpu   device=auto, tandem.placement.target=cpu-only: CUDA starts in the background at
             process start (as in every auto run), every plan stays on the CPU
  auto       device=auto: the planner decides (the benchmark's auto cell)
Prints each arm's measured times, median, and cpu median / arm median.
  aa_probe.py TANDEM QUERY_FILE ROUNDS [--warmups N] -- [tandem sql args: --table ..., --udf ...]
"""
import statistics
import subprocess
import sys


def main():
    tandem, query_file, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rest = sys.argv[4:]
    warmups = 2
    if rest[:1] == ["--warmups"]:
        warmups, rest = int(rest[1]), rest[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    query = open(query_file).read().strip().rstrip(";")
    script = ";\n".join([query] * (warmups + 1)) + ";\n"
    arms = {
        "cpu": ["--conf", "tandem.sql.device=cpu"],
        "auto-cpu": ["--conf", "tandem.sql.device=auto", "--conf", "tandem.placement.target=cpu-only"],
        "auto": ["--conf", "tandem.sql.device=auto"],
    }
    times = {arm: [] for arm in arms}
    devices = {}
    for _ in range(rounds):
        for arm, conf in arms.items():
            proc = subprocess.run([tandem, "sql", "--timing", *conf, *rest, script],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                why = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
                sys.exit(f"aa_probe: {arm}: {why}")
            lines = proc.stderr.splitlines()
            measured = [float(l.split()[1]) for l in lines if l.startswith("Time: ")]
            times[arm].append(measured[-1])
            devices[arm] = [l[9:] for l in lines if l.startswith("Devices: ")][-1:]
    base = statistics.median(times["cpu"])
    for arm, ts in times.items():
        m = statistics.median(ts)
        print(f"  {arm:9s} median {m:9.1f} ms  cpu/arm {base / m:5.2f}  runs "
              f"{' '.join(f'{t:.1f}' for t in ts)}  {devices[arm]}")


if __name__ == "__main__":
    main()
