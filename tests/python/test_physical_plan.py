"""The physical plan (exec/physical_plan.h): EXPLAIN names, before anything runs, the operator
each node will run as (fused ones as such) and the CPU pipeline it belongs to; EXPLAIN ANALYZE
records what ran. The planner walks the plan by the executor's own rules, so on runs that do not
adapt the two agree node for node: the 22 TPC-H queries (DuckDB's data at SF0.1) from files, with
tables cached in host memory, and with pipelines off. When a run adapts (an operator run again
after running out of host memory), EXPLAIN ANALYZE says what it was planned as. Plans for an
H200 (tandem.placement.target, no GPU needed for EXPLAIN) number their GPU parts and the CPU
pipelines around them in run order: every input before what reads it.
"""
import csv
import io
import json
import re
import subprocess

import pytest

from random_queries import tandem_command
from test_tpch_queries import dataset, query_path

pytestmark = pytest.mark.skipif(not tandem_command(), reason="TANDEM_BIN not set")

DATA = "duckdb-sf0.1"
# [name on device, label] in EXPLAIN; [name on device: rows ..., label] in EXPLAIN ANALYZE.
PLANNED = re.compile(r"^(.+?) on (cpu|gpu|pcie)(?:, (.*))?\]$")
RAN = re.compile(r"^(.+?) on (cpu|gpu|pcie): .*?(?:, ((?:source of |sink of )?pipeline \d+))?"
                 r"(?:, planned as .*)?\]$")


def statements(n):
    with open(query_path(n)) as f:
        text = "\n".join(l for l in f.read().splitlines() if not l.lstrip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def script(n, prelude=""):
    """EXPLAIN, then EXPLAIN ANALYZE, of the query's SELECT (a view it makes first, Q15's, made
    before and dropped after)."""
    parts = [prelude] if prelude else []
    for s in statements(n):
        if s.lower().startswith(("select", "with")):
            parts += [f"EXPLAIN {s};", f"EXPLAIN ANALYZE {s};"]
        else:
            parts.append(s + ";")
    return "\n".join(parts) + "\n"


def run(text):
    tables, _ = dataset(DATA)
    cmd = tandem_command() + ["sql", "-f", "-"]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    out = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def explain_and_analyze(output):
    """(EXPLAIN's nodes, EXPLAIN ANALYZE's nodes): the first plan printed, then the second."""
    blocks, current = [], None
    for line in output.splitlines():
        if line.startswith("Placement:"):
            current = []
            blocks.append(current)
        elif current is not None and "  [" in line:
            current.append(line)
    assert len(blocks) == 2, output
    planned = []
    for line in blocks[0]:
        cut = line.rfind("  [")
        planned.append((line[:cut].split(None, 1)[1].strip(), line[cut + 3:]))
    ran = [(line[:line.rfind("  [")].strip(), line[line.rfind("  [") + 3:]) for line in blocks[1]]
    return planned, ran


def ran_as_planned(planned, ran):
    """exec/plan_text.h's RanAsPlanned: the same name, or a scan's or a flipped join's details."""
    if not ran.startswith(planned):
        return False
    rest = ran[len(planned):]
    return rest == "" or rest.startswith(",") or (planned.startswith("Scan ") and
                                                  rest.startswith(" ("))


def check_agreement(output, where):
    planned, ran = explain_and_analyze(output)
    assert [d for d, _ in planned] == [d for d, _ in ran], f"{where}: different trees"
    for (describe, p), (_, r) in zip(planned, ran):
        if r.startswith("not run"):
            continue  # an identical subplan's copy: computed once, elsewhere
        assert "planned as" not in r and "not in the physical plan" not in r, \
            f"{where}: {describe}: {r}"
        pm, rm = PLANNED.match(p), RAN.match(r)
        assert pm and rm, f"{where}: {describe}: [{p} / [{r}"
        assert rm.group(2) == pm.group(2), f"{where}: {describe}: device {p} / {r}"
        assert ran_as_planned(pm.group(1), rm.group(1)), f"{where}: {describe}: {p} / {r}"
        assert (pm.group(3) or "") == (rm.group(3) or ""), f"{where}: {describe}: {p} / {r}"
    return planned


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_explain_names_what_explain_analyze_records(n):
    planned = check_agreement(run(script(n)), f"Q{n:02d}")
    # Every node of a TPC-H query on the CPU is planned; the big ones stream.
    assert any("pipeline" in p for _, p in planned), planned


CACHED = "SET tandem.sql.device = cpu;\n" + "\n".join(
    f"CACHE TABLE {t};" for t in ["lineitem", "orders", "customer", "part", "partsupp"])


@pytest.mark.parametrize("n", [1, 3, 9, 13, 18, 21], ids=lambda n: f"q{n:02d}")
@pytest.mark.parametrize("how", ["cached", "no_pipelines"])
def test_agreement_with_other_settings(how, n):
    prelude = CACHED if how == "cached" else "SET tandem.exec.pipelines = false;"
    planned = check_agreement(run(script(n, prelude)), f"Q{n:02d} {how}")
    if how == "cached":
        assert any("(cached in host memory) on cpu, source of pipeline" in p
                   for _, p in planned), planned
    else:
        assert not any("pipeline" in p for _, p in planned), planned


def test_fused_operators_are_named_before_the_run():
    out = run(script(3))
    planned, _ = explain_and_analyze(out)
    names = [p for _, p in planned]
    assert any(p.startswith("TopN (pipeline sink) on cpu, sink of pipeline") for p in names)
    assert any(p.startswith("Sort (in TopN) on cpu") for p in names)
    assert any(p.startswith("Filter (in HashJoin probe) on cpu") for p in names)
    # Pipelines are numbered in the order they run: a build side before its probe.
    numbers = [int(m.group(1)) for p in names for m in [re.search(r"pipeline (\d+)", p)] if m]
    assert sorted(set(numbers)) == list(range(1, max(numbers) + 1))


def test_an_adapting_run_says_what_was_planned():
    # A host allocation fails: Q1's aggregation partitions its groups on disk instead.
    out = run(script(1, "SET tandem.test.injectHostOom = 1;"))
    _, ran = explain_and_analyze(out)
    adapted = [r for _, r in ran if "planned as" in r]
    assert len(adapted) == 1, ran
    assert adapted[0].startswith("HashAggregate (pipeline sink) (partitioned on disk"), adapted
    assert adapted[0].endswith("sink of pipeline 1, planned as HashAggregate (pipeline sink)]"), \
        adapted


def json_plans(text):
    """The plans of a script's EXPLAIN (FORMAT JSON) statements, each one row of text per line."""
    tables, _ = dataset(DATA)
    cmd = tandem_command() + ["sql", "-f", "-", "--format", "csv"]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    out = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [r[0] for r in csv.reader(io.StringIO(out.stdout)) if r]
    plans, current = [], None
    for row in rows:
        if row == "plan":
            current = []
            plans.append(current)
        elif current is not None:
            current.append(row)
    return [json.loads("\n".join(p))["plan"] for p in plans]


def check_numbering(node, where):
    """Every node is planned; a GPU part's nodes are on the GPU or PCIe; an input in another
    pipeline or part runs before the node reading it (a smaller number)."""
    physical = node.get("physical")
    assert physical and physical["name"], f"{where}: {node['operator']}"
    if physical["role"] == "shared":
        return  # an identical subplan's copy: what is below it runs once, elsewhere
    mine = physical.get("pipeline", 0)
    for child in node["children"]:
        check_numbering(child, where)
        theirs = child["physical"].get("pipeline", 0)
        if mine > 0 and theirs > 0 and theirs != mine:
            assert theirs < mine, f"{where}: {child['operator']} ({theirs}) feeds " \
                                  f"{node['operator']} ({mine})"


@pytest.mark.parametrize("mode", ["gpu", "auto"])
def test_gpu_parts_are_numbered_in_run_order(mode):
    # Planned for an H200 without one (tandem.placement.target): GPU parts, their transitions and
    # the CPU pipelines around them, as the executor would run them there.
    text = f"SET tandem.placement.target = h200;\nSET tandem.sql.device = {mode};\n"
    queries = [n for n in range(1, 23) if n != 15]
    for n in queries:
        text += "EXPLAIN (FORMAT JSON) " + statements(n)[0] + ";\n"
    plans = json_plans(text)
    assert len(plans) == len(queries)
    gpu_parts = 0
    for n, plan in zip(queries, plans):
        check_numbering(plan, f"Q{n:02d} {mode}")
        stack = [plan]
        while stack:
            node = stack.pop()
            if node["physical"]["role"] == "shared":
                continue
            stack += node["children"]
            if node["device"] in ("gpu", "pcie"):
                gpu_parts += node["physical"].get("pipeline", 0) > 0
    if mode == "gpu":
        assert gpu_parts > 0  # the placement put parts on the GPU
