"""Breaker outputs larger than the host budget (tandem.memory.host.limit): an aggregation whose
partial states were partitioned on disk, a Window computed over partitions on disk, a UNION ALL
whose inputs do not fit together, or a UNION, INTERSECT or EXCEPT partitioned on disk by all
columns, writes its output to a spill file as it is made, and what reads it (the pipeline above:
a HAVING filter, a join's probe or build, another aggregation; a Sort, TopN or Window; the
printed result) takes it from there block by block (QueryRun::RunPipelineSource). So does a
Window over one partition (no PARTITION BY) computed in chunks as its sorted rows are merged. Before, the output was one table in
memory, and a query whose groups did not fit together failed with "limit reached" even when the
operator above kept few of them (TPC-H Q18's subquery at an eighth of its working set).

Each query runs with a limit several times below its output; its answer must be DuckDB's and
EXPLAIN ANALYZE must say the output went to disk. Unlimited, nothing spills.
"""
import os
import subprocess

import pytest

from random_queries import compare_results, run_duckdb, run_tandem, tandem_command
from test_spill import (LIMIT, THREADS, assert_same_rows, duck, explain_analyze, limited,
                        print_to_stdout, tables)  # noqa: F401 (tables is a fixture)

pytestmark = pytest.mark.skipif(not tandem_command(), reason="TANDEM_BIN not set")

# About 590 000 groups of (k, s): some 40 MB of output against a 6 MB limit.
GROUPS = "SELECT k, s, count(*) AS c, sum(v) AS sv, sum(amt) AS sa FROM fact GROUP BY k, s"
GROUPS_ON_DISK = "its groups written to disk"
ROWS_ON_DISK = "its rows written to disk"
UNION_ON_DISK = "UNION ALL: its inputs' rows written to disk"
SET_OP_PARTITIONED = "SetOperation (partitioned on disk"
ONE_PARTITION_ON_DISK = "computed in chunks of"  # with ROWS_ON_DISK, checked below
ONE_PARTITION_READ_TWICE = "read twice, computed in chunks of"
LARGE_WINDOW_PARTITION = "too large sorted by key on disk"

# Filters estimated to keep a few dozen of the 600 000 rows; they keep all but a few hundred.
UNDERESTIMATED = ("s LIKE 'n%' AND s LIKE '%e%' AND s LIKE 'na%' AND s LIKE '%-%' AND v > -1000 "
                  "AND k > -5")

# (query, what EXPLAIN ANALYZE must show)
CASES = {
    "having_keeps_few_groups": (
        "SELECT k, s, sum(v) AS sv, count(*) AS c FROM fact GROUP BY k, s HAVING sum(v) > 990",
        GROUPS_ON_DISK),
    "aggregation_over_aggregation": (
        f"SELECT c, count(*) AS n, sum(sv) AS sv, sum(sa) AS sa FROM ({GROUPS}) x GROUP BY c",
        GROUPS_ON_DISK),
    # Straight over the groups, with no projection between: a pipeline too.
    "count_of_distinct_rows": (
        "SELECT count(*) AS n FROM (SELECT DISTINCT k, s FROM fact) t", GROUPS_ON_DISK),
    "groups_probe_a_join": (
        f"SELECT d.grp, count(*) AS n, sum(x.sv) AS sv FROM ({GROUPS}) x JOIN dim d "
        "ON x.k = d.id WHERE x.c > 0 GROUP BY d.grp", GROUPS_ON_DISK),
    # The join's build side (dim, filtered) is built first and leaves too little for the
    # aggregation below the probe: the join goes grace and the aggregation runs again.
    "groups_probe_a_join_built_first": (
        "SELECT count(*) AS n, sum(g.sv) AS sv FROM dim d JOIN (SELECT k, s, sum(v) AS sv FROM fact "
        "GROUP BY k, s) g ON d.id = g.k WHERE d.grp < 7", "grace"),
    # The groups are the join's build side: partitioned from their file, the join grace.
    "groups_build_a_join": (
        "SELECT count(*) AS n, sum(g.sv) AS sv FROM fact f JOIN (SELECT k, s, sum(v) AS sv FROM "
        "fact GROUP BY k, s) g ON f.k = g.k AND f.s = g.s", GROUPS_ON_DISK),
    # UNION ALL inputs that do not fit together: each input's rows go to one file as made (a
    # filtered scan straight from its pipeline), read by the aggregation above.
    "union_all_aggregated": (
        "SELECT k % 7 AS g, count(*) AS n, sum(v) AS sv, max(s) AS ms FROM (SELECT k, v, s FROM "
        "fact WHERE v > 0 UNION ALL SELECT k, v, s FROM fact UNION ALL SELECT id, grp, name FROM "
        "dim) t GROUP BY 1", UNION_ON_DISK),
    "union_all_of_groups_joined": (
        "SELECT d.grp, count(*) AS n, sum(u.sv) AS sv FROM (SELECT k, sum(v) AS sv FROM fact "
        "GROUP BY k, s UNION ALL SELECT id, grp FROM dim) u JOIN dim d ON u.k = d.id "
        "GROUP BY d.grp", UNION_ON_DISK),
    # UNION, INTERSECT and EXCEPT: every input partitioned on disk by all its columns, the
    # operation run one partition at a time.
    "union": (
        "SELECT count(*) AS n, sum(k) AS sk FROM (SELECT k, s FROM fact UNION SELECT k, s FROM "
        "fact WHERE v > 0 UNION SELECT id, name FROM dim) t", SET_OP_PARTITIONED),
    "except": (
        "SELECT count(*) AS n, sum(k) AS sk, max(s) AS ms FROM (SELECT k, s FROM fact EXCEPT "
        "SELECT k, s FROM fact WHERE v > 0) t", SET_OP_PARTITIONED),
    "intersect_all": (
        "SELECT k % 5 AS g, count(*) AS n, sum(k) AS sk FROM (SELECT k, s FROM fact INTERSECT ALL "
        "SELECT k, s FROM fact WHERE v > 0) t GROUP BY 1", SET_OP_PARTITIONED),
    "except_all": (
        "SELECT count(*) AS n, sum(k) AS sk FROM (SELECT k, s FROM fact EXCEPT ALL SELECT k, s "
        "FROM fact WHERE v > 0) t", SET_OP_PARTITIONED),
    # Conditions the estimates take for very selective (LIKE, LIKE, ...) keep nearly every row:
    # the inputs are split in 4 partitions where 40 were needed, so each partition is split again
    # on disk (another hash) and its pieces run in turn.
    "union_partitions_split_again": (
        f"SELECT count(*) AS n, sum(k) AS sk, max(s) AS ms FROM (SELECT k, s FROM fact WHERE "
        f"{UNDERESTIMATED} UNION SELECT k, s FROM fact WHERE {UNDERESTIMATED} AND v <> 3) t",
        "split again"),
    "window_over_groups": (
        "SELECT count(*) AS n, sum(sv) AS sv, max(s) AS ms FROM (SELECT k, s, sv, row_number() "
        f"OVER (PARTITION BY k ORDER BY s) AS r FROM ({GROUPS}) x) y WHERE r = 1",
        GROUPS_ON_DISK),
    "window_rows_filtered": (
        "SELECT k, v, s, r FROM (SELECT k, v, s, row_number() OVER (PARTITION BY s ORDER BY k, v) "
        "AS r FROM fact) y WHERE r <= 2 AND v > 0", ROWS_ON_DISK),
    # One partition of every row (no PARTITION BY): neither its sorted rows nor its output fit.
    # The merge of the sorted runs feeds the chunks as it makes blocks; the output goes to disk.
    "window_one_partition_rows_filtered": (
        "SELECT k, v, s, rn, pv, cs FROM (SELECT k, v, s, row_number() OVER w AS rn, "
        "lag(v, 2) OVER w AS pv, sum(v) OVER w AS cs FROM fact WINDOW w AS (ORDER BY s, k, v)) y "
        "WHERE rn % 997 = 0", ONE_PARTITION_ON_DISK),
    # NTILE and FIRST_VALUE need every row first: the sorted rows go to a file read twice.
    "window_one_partition_read_twice": (
        "SELECT nt, count(*) AS n, min(k) AS mk, max(v) AS mv, max(fs) AS fs, min(lv) AS lv "
        "FROM (SELECT k, v, ntile(10) OVER w AS nt, first_value(s) OVER w AS fs, "
        "last_value(k) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv "
        "FROM fact WINDOW w AS (ORDER BY k, v, s)) t GROUP BY nt", ONE_PARTITION_READ_TWICE),
    # A PARTITION BY key that holds nearly every row (skew): its partition on disk does not fit
    # whole, so it is sorted on disk by key and ORDER BY; the large window partition is computed
    # in ordered chunks, the small ones beside it in its file in groups, in memory.
    "window_skewed_partition": (
        "SELECT g, count(*) AS n, sum(rn) AS srn, sum(cs) AS scs, sum(pv) AS spv, max(rk) AS mrk "
        "FROM (SELECT k, CASE WHEN v > -800 THEN 0 ELSE k END AS g, row_number() OVER w AS rn, "
        "sum(v) OVER w AS cs, lag(v) OVER w AS pv, rank() OVER w AS rk FROM fact WINDOW w AS "
        "(PARTITION BY CASE WHEN v > -800 THEN 0 ELSE k END ORDER BY s, v)) y "
        "GROUP BY g HAVING count(*) > 2 OR g % 1000 = 7", LARGE_WINDOW_PARTITION),
    # The same with calls that need every row of the partition first (its sorted rows read twice
    # from there) and one with no ORDER BY beside the ordered ones.
    "window_skewed_partition_read_twice": (
        "SELECT v > 900 AS big, count(*) AS n, sum(n) AS sn, sum(nt) AS snt, min(fk) AS fk, "
        "sum(pr) AS spr FROM (SELECT v, count(*) OVER (PARTITION BY v > 900) AS n, "
        "ntile(5) OVER w AS nt, first_value(k) OVER w AS fk, "
        "round(percent_rank() OVER w, 9) AS pr FROM fact WINDOW w AS "
        "(PARTITION BY v > 900 ORDER BY s, k, v)) y GROUP BY 1", LARGE_WINDOW_PARTITION),
    # Peer groups of 200 000 rows (ORDER BY v % 2), each larger than the limit, under calls
    # that do not see peers: chunks end inside them.
    "window_one_partition_peer_groups_larger_than_the_limit": (
        "SELECT p, count(*) AS n, sum(rn) AS srn, max(rn) AS mrn, sum(nt) AS snt, max(t) AS t "
        "FROM (SELECT v % 2 AS p, row_number() OVER w AS rn, ntile(4) OVER w AS nt, "
        "sum(v) OVER () AS t FROM fact WINDOW w AS (ORDER BY v % 2)) y GROUP BY p",
        ONE_PARTITION_READ_TWICE),
    # The same peer groups under calls that see peers: each group is computed in pieces, held
    # on disk, and its rows take the group's value (RANK, DENSE_RANK, PERCENT_RANK from its
    # first row; CUME_DIST and frames by RANGE up to the row's peers from its last). Every row
    # of a group must have the same value: min and max per group are both compared.
    "window_one_partition_peer_groups_larger_than_the_limit_seen_by_peers": (
        "SELECT p, count(*) AS n, min(r) AS r1, max(r) AS r2, min(dr) AS dr1, max(dr) AS dr2, "
        "min(pr) AS pr1, max(pr) AS pr2, min(cd) AS cd1, max(cd) AS cd2, min(rs) AS rs1, "
        "max(rs) AS rs2, min(rc) AS rc1, max(rc) AS rc2, min(mk) AS mk, max(xk) AS xk, "
        "min(av) AS av1, max(av) AS av2, sum(rn) AS srn, max(lv) AS lv "
        "FROM (SELECT v % 2 AS p, rank() OVER w AS r, dense_rank() OVER w AS dr, "
        "round(percent_rank() OVER w, 9) AS pr, round(cume_dist() OVER w, 9) AS cd, "
        "sum(v) OVER w AS rs, count(*) OVER w AS rc, min(k) OVER w AS mk, max(k) OVER w AS xk, "
        "round(avg(v) OVER w, 6) AS av, row_number() OVER w AS rn, "
        "last_value(v % 2) OVER w AS lv FROM fact WINDOW w AS (ORDER BY v % 2)) y GROUP BY p",
        ONE_PARTITION_READ_TWICE),
    # Descending, NULLs first (k has NULLs), without calls that need every row first; LEAD
    # beside them (its last rows stay open across a group's pieces).
    "window_one_partition_large_peer_groups_desc_nulls_first": (
        "SELECT p, count(*) AS n, min(r) AS r1, max(r) AS r2, min(dr) AS dr1, max(dr) AS dr2, "
        "min(rs) AS rs1, max(rs) AS rs2, min(rc) AS rc1, max(rc) AS rc2, sum(ld) AS sld "
        "FROM (SELECT k % 3 AS p, rank() OVER w AS r, dense_rank() OVER w AS dr, "
        "sum(v) OVER w AS rs, count(k) OVER w AS rc, lead(v, 2, 0) OVER w - lead(v, 2, 0) OVER w "
        "AS ld FROM fact WINDOW w AS (ORDER BY k % 3 DESC NULLS FIRST)) y GROUP BY p",
        ONE_PARTITION_ON_DISK),
    # Large and small peer groups in turn (v < 0 one group, 0..99 one each, the rest one),
    # with a sliding ROWS frame (its count: the order within peers is not fixed) and NTILE
    # beside the calls that see peers.
    "window_one_partition_large_and_small_peer_groups": (
        "SELECT p, count(*) AS n, min(r) AS r1, max(r) AS r2, min(cd) AS cd1, max(cd) AS cd2, "
        "min(rs) AS rs1, max(rs) AS rs2, sum(nt) AS snt, sum(sl) AS ssl "
        "FROM (SELECT v, p, rank() OVER w AS r, round(cume_dist() OVER w, 9) AS cd, "
        "sum(v) OVER w AS rs, ntile(7) OVER w AS nt, "
        "count(*) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS sl FROM (SELECT v, "
        "CASE WHEN v < 0 THEN -1 WHEN v < 100 THEN v ELSE 1000 END AS p FROM fact) f "
        "WINDOW w AS (ORDER BY p)) y GROUP BY p", ONE_PARTITION_READ_TWICE),
    # A window partition too large for memory (v <= 900) whose peer groups are too: the
    # partition is walked in ordered chunks, each peer group in pieces.
    "window_skewed_partition_large_peer_groups": (
        "SELECT big, p, count(*) AS n, min(r) AS r1, max(r) AS r2, min(rs) AS rs1, "
        "max(rs) AS rs2 FROM (SELECT v > 900 AS big, v % 2 AS p, rank() OVER w AS r, "
        "sum(v) OVER w AS rs FROM fact WINDOW w AS (PARTITION BY v > 900 ORDER BY v % 2)) y "
        "GROUP BY big, p", LARGE_WINDOW_PARTITION),
    # RANGE frames reaching ahead by value, over a window partition too large for memory and
    # over one partition: each chunk's last rows within the reach ahead stay open until the next
    # chunk is made. v has about 300 rows per value, so a chunk covers few values.
    "window_skewed_partition_range_ahead": (
        "SELECT big, count(*) AS n, sum(t) AS st, min(t) AS mt, sum(c) AS sc, max(a) AS ma FROM "
        "(SELECT v > 900 AS big, sum(v) OVER w AS t, "
        "count(*) OVER (PARTITION BY v > 900 ORDER BY v RANGE BETWEEN 2 FOLLOWING AND "
        "4 FOLLOWING) AS c, round(avg(k) OVER w, 6) AS a FROM fact WINDOW w AS (PARTITION BY "
        "v > 900 ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING)) y GROUP BY big",
        LARGE_WINDOW_PARTITION),
    "window_one_partition_range_ahead": (
        "SELECT count(*) AS n, sum(t) AS st, max(t) AS xt, sum(c) AS sc FROM (SELECT "
        "sum(k) OVER w AS t, count(k) OVER (ORDER BY v DESC RANGE BETWEEN CURRENT ROW AND "
        "3 FOLLOWING) AS c FROM fact WINDOW w AS (ORDER BY v DESC RANGE BETWEEN 1 PRECEDING "
        "AND 2 FOLLOWING)) y", ONE_PARTITION_ON_DISK),
    # COUNT, SUM and AVG from the current row to the partition's end: the totals over every row
    # (the sorted rows read twice) less the rows before; by ROWS and by RANGE (from the row's
    # first peer), over one partition and over a window partition too large for memory whose
    # peer groups (v % 7) are too.
    "window_one_partition_to_the_end": (
        "SELECT count(*) AS n, sum(t) AS st, min(t) AS mt, sum(c) AS sc, sum(cr) AS scr, "
        "max(a) AS ma FROM (SELECT sum(v) OVER w AS t, count(k) OVER w AS c, "
        "count(*) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS cr, "
        "round(avg(v) OVER w, 6) AS a FROM fact WINDOW w AS (ORDER BY k RANGE BETWEEN "
        "CURRENT ROW AND UNBOUNDED FOLLOWING)) y", ONE_PARTITION_READ_TWICE),
    "window_skewed_partition_to_the_end": (
        "SELECT big, p, count(*) AS n, min(t) AS t1, max(t) AS t2, min(c) AS c1, max(c) AS c2 "
        "FROM (SELECT v > 900 AS big, v % 7 AS p, sum(v) OVER w AS t, count(*) OVER w AS c "
        "FROM fact WINDOW w AS (PARTITION BY v > 900 ORDER BY v % 7 RANGE BETWEEN CURRENT ROW "
        "AND UNBOUNDED FOLLOWING)) y GROUP BY big, p", LARGE_WINDOW_PARTITION),
    # OVER () with no ORDER BY over rows that do not fit: they go to disk as they come, read
    # once for the aggregates over every row, then again for the rows.
    "window_over_every_row_unordered": (
        "SELECT k, v, s, n FROM (SELECT k, v, s, max(v) OVER () AS mv, count(*) OVER () AS n, "
        "min(s) OVER () AS ms FROM fact) t WHERE v = mv OR s = ms", ONE_PARTITION_READ_TWICE),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_larger_than_the_limit_are_read_from_disk(tables, case, tmp_path):
    sql, note = CASES[case]
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path))
    diff = compare_results(actual[:2], expected)
    assert diff is None, f"{case}: {diff}"
    assert os.listdir(tmp_path) == []
    plan = explain_analyze(sql, tables, limited(tmp_path))
    assert note in plan and "spilled " in plan, plan
    if note in (ONE_PARTITION_ON_DISK, ONE_PARTITION_READ_TWICE):
        assert "Window (one partition" in plan and ROWS_ON_DISK in plan, plan
    unlimited = explain_analyze(sql, tables, THREADS + ["--conf", f"tandem.spill.dir={tmp_path}"])
    assert note not in unlimited and "spilled " not in unlimited, unlimited


def test_a_large_window_partition_that_cannot_be_chunked_fails_cleanly(tables, tmp_path):
    # MIN over a RANGE frame reaching to the partition's end, over a partition of nearly every
    # row: it needs its partition whole (COUNT, SUM and AVG do not), so the limit is a one-line
    # error naming it, not a crash or a wrong answer.
    sql = ("SELECT count(*), sum(t) FROM (SELECT min(v) OVER (PARTITION BY v > 900 ORDER BY v "
           "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS t FROM fact) y")
    cmd = tandem_command() + ["sql", sql, "--table", f"fact={tables['fact']}"] + limited(tmp_path)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout[:500]
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "window partition larger than tandem.memory.host.limit" in proc.stderr, proc.stderr
    assert os.listdir(tmp_path) == []


# Results that are an operator's output on disk, printed from there: (query, its columns as DuckDB
# reads them from CSV).
PRINTED_FROM_DISK = {
    # The aggregation itself.
    "groups": (GROUPS, "{'k': 'BIGINT', 's': 'VARCHAR', 'c': 'BIGINT', 'sv': 'HUGEINT', "
               "'sa': 'DECIMAL(38,2)'}"),
    # A window over one partition. (k, v, s) leaves ties only between rows that are equal
    # anyway, so the rows with their numbers are DuckDB's.
    "window_one_partition": (
        "SELECT k, v, s, row_number() OVER w AS rn, lead(k, 3) OVER w AS nk FROM fact "
        "WINDOW w AS (ORDER BY k, v, s)",
        "{'k': 'BIGINT', 'v': 'BIGINT', 's': 'VARCHAR', 'rn': 'BIGINT', 'nk': 'BIGINT'}"),
}


@pytest.mark.parametrize("case", sorted(PRINTED_FROM_DISK))
def test_outputs_larger_than_the_limit_print_to_standard_output(tables, tmp_path, case):
    sql, columns = PRINTED_FROM_DISK[case]
    proc, printed = print_to_stdout(tables, tmp_path, sql, LIMIT, "csv")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert os.path.getsize(printed) > 2 * LIMIT
    assert_same_rows(duck(tables), f"read_csv('{printed}', header = true, columns = {columns})",
                     f"({sql})")


def test_groups_on_disk_that_fit_are_read_whole(tables, tmp_path):
    # Under 10 MB the aggregation's states spill, so its groups (230 000, about 4 MB) go to disk,
    # but they fit: the window over every row (OVER (): no PARTITION BY, no ORDER BY) reads them
    # back whole. Reading them from disk only, it once failed.
    sql = ("SELECT k, c, c * 100.0 / sum(c) OVER () AS pct FROM (SELECT k, count(*) AS c FROM "
           "fact GROUP BY k) g ORDER BY pct DESC, k LIMIT 3")
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path, 10_000_000))
    diff = compare_results(actual[:2], expected, order_by=["pct", "k"], limit=3)
    assert diff is None, diff
    plan = explain_analyze(sql, tables, limited(tmp_path, 10_000_000))
    assert GROUPS_ON_DISK in plan, plan


# (query, its columns as DuckDB reads them from CSV)
PRINTED = {
    "union_all": ("SELECT k, v, s FROM fact UNION ALL SELECT id, grp, name FROM dim",
                  "{'k': 'BIGINT', 'v': 'BIGINT', 's': 'VARCHAR'}"),
    "intersect": ("SELECT k, s FROM fact INTERSECT SELECT k, s FROM fact WHERE v < 500",
                  "{'k': 'BIGINT', 's': 'VARCHAR'}"),
}


@pytest.mark.parametrize("case", sorted(PRINTED))
def test_a_set_operation_larger_than_the_limit_prints_to_standard_output(tables, tmp_path, case):
    sql, columns = PRINTED[case]
    proc, printed = print_to_stdout(tables, tmp_path, sql, LIMIT, "csv")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert_same_rows(duck(tables), f"read_csv('{printed}', header = true, columns = {columns})",
                     f"({sql})")


def test_groups_larger_than_the_limit_sort(tables, tmp_path):
    # ORDER BY over the groups: sorted runs made from the file of groups, merged in order.
    sql = f"SELECT k, s, sv FROM ({GROUPS}) x ORDER BY sv DESC, k, s"
    proc, printed = print_to_stdout(tables, tmp_path, sql, LIMIT, "csv")
    assert proc.returncode == 0, proc.stderr[-2000:]
    con = duck(tables)
    got = con.execute(f"SELECT k, s, sv FROM read_csv('{printed}', header = true, columns = "
                      "{'k': 'BIGINT', 's': 'VARCHAR', 'sv': 'HUGEINT'})").fetchall()
    assert got == con.execute(sql).fetchall()
