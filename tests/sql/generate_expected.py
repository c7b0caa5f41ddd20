#!/usr/bin/env python3
"""Fills in the expected results of tests/sql/*.test from DuckDB, the oracle.

Each file runs top to bottom in one DuckDB connection (so CREATE TABLE/VIEW persist). For every
`query` record the type letters and the block after `----` are rewritten from DuckDB's answer;
`statement ok` records must succeed in DuckDB; `statement error` records are checked to fail in
DuckDB too (the expected text is Tandem's own message and is kept).

Comment directives on the line(s) just before a record:
  # duckdb: <sql>      run this SQL in DuckDB instead (same meaning, DuckDB's spelling, e.g. a
                       Spark-typed decimal division written with explicit casts)
  # not-duckdb: <why>  DuckDB cannot judge this record (Tandem settings such as ANSI mode,
                       Tandem's error texts); the record is left exactly as written

Usage: .venv/bin/python tests/sql/generate_expected.py [--check] [FILE.test ...]
  --check  rewrite nothing; exit 1 if any file would change (to see that files are current)
Review the diff after regenerating: the answers are DuckDB's, the files are ours.
"""
import datetime
import decimal
import math
import os
import sys

import duckdb

TEST_DIR = os.path.dirname(os.path.abspath(__file__))


def type_letter(duck_type):
    t = str(duck_type).upper()
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
             "UINTEGER", "UBIGINT", "UHUGEINT"):
        return "I"
    if t in ("FLOAT", "DOUBLE", "REAL"):
        return "R"
    if t.startswith("DECIMAL"):
        return "D"
    return "T"


def escape(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def cell(value):
    """A value written the way Tandem's format::AppendText writes it."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, datetime.datetime):
        text = value.strftime("%Y-%m-%dT%H:%M:%S.%f")
        return text + ("Z" if value.tzinfo is not None else "")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str):
        return escape(value) if value else "(empty)"
    raise ValueError(f"no text form for {type(value).__name__} value {value!r}")


def parse(lines):
    """Yields ('text', line) and ('record', header, sql_lines, block_or_None, directives)."""
    i = 0
    items = []
    pending = []  # comment lines before the next record
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            items.append(("text", line))
            pending.append(line) if line.startswith("#") else pending.clear()
            i += 1
            continue
        header = line
        i += 1
        sql = []
        while i < len(lines) and lines[i].strip() and lines[i] != "----":
            sql.append(lines[i])
            i += 1
        block = None
        if i < len(lines) and lines[i] == "----":
            i += 1
            block = []
            while i < len(lines) and lines[i] != "":
                block.append(lines[i])
                i += 1
        directives = {}
        for c in pending:
            body = c[1:].strip()
            for key in ("duckdb:", "not-duckdb:"):
                if body.startswith(key):
                    directives[key[:-1]] = body[len(key):].strip()
        pending = []
        items.append(("record", header, sql, block, directives))
    return items


def regenerate(path):
    with open(path) as f:
        original = f.read()
    lines = original.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    con = duckdb.connect()
    out = []
    problems = []
    for item in parse(lines):
        if item[0] == "text":
            out.append(item[1])
            continue
        _, header, sql_lines, block, directives = item
        words = header.split()
        where = f"{os.path.basename(path)}: {header} / {sql_lines[0]}"

        def emit(new_header, new_block):
            out.append(new_header)
            out.extend(sql_lines)
            if new_block is not None:
                out.append("----")
                out.extend(new_block)

        if "not-duckdb" in directives:
            emit(header, block)
            continue
        sql = directives.get("duckdb") or "\n".join(sql_lines)
        sql = sql.replace("__TEST_DIR__", TEST_DIR)
        if words[0] == "statement":
            ok = True
            try:
                con.execute(sql)
            except duckdb.Error as e:
                ok = False
                err = str(e).splitlines()[0]
            if words[1] == "ok" and not ok:
                problems.append(f"{where}: DuckDB fails: {err}")
            if words[1] == "error" and ok:
                problems.append(f"{where}: DuckDB succeeds where Tandem must fail "
                                "(add '# not-duckdb: <why>' if that is intended)")
            emit(header, block)
            continue
        sort_mode = words[2] if len(words) > 2 else None
        try:
            rel = con.sql(sql)
            types = "".join(type_letter(t) for t in rel.types)
            rows = rel.fetchall()
        except duckdb.Error as e:
            problems.append(f"{where}: DuckDB fails: {str(e).splitlines()[0]}")
            emit(header, block)
            continue
        new_header = "query " + types + (" " + sort_mode if sort_mode else "")
        if sort_mode == "valuesort":
            new_block = sorted(cell(v) for row in rows for v in row)
        else:
            cells = [[cell(v) for v in row] for row in rows]
            if sort_mode == "rowsort":
                cells.sort()  # the runner sorts the same way, so files stay stable
            new_block = ["\t".join(row) for row in cells]
        emit(new_header, new_block)
    text = "\n".join(out) + "\n"
    return original, text, problems


def main(argv):
    check = "--check" in argv
    files = [a for a in argv if a != "--check"]
    if not files:
        files = sorted(os.path.join(TEST_DIR, f) for f in os.listdir(TEST_DIR)
                       if f.endswith(".test"))
    changed = False
    all_problems = []
    for path in files:
        original, text, problems = regenerate(path)
        all_problems += problems
        if text != original:
            changed = True
            if check:
                print(f"{path}: expected results are not DuckDB's (regenerate)")
            else:
                with open(path, "w") as f:
                    f.write(text)
                print(f"{path}: updated")
    for p in all_problems:
        print("problem:", p, file=sys.stderr)
    return 1 if (check and changed) or all_problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
