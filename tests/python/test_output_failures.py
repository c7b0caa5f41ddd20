"""Output that cannot be written, and commands cut short: every write path of the `tandem` command
line fails with a non-zero exit and one line naming what failed when standard output is a full
device (/dev/full) or a file cannot grow (RLIMIT_FSIZE, the portable stand-in for a full disk),
and SIGINT, SIGTERM and SIGHUP during a write leave no temporary files and say what was
cancelled. Files are written atomically: a failed write leaves no file, not half of one."""
import glob
import os
import resource
import signal
import subprocess
import time

import pytest

TANDEM = os.environ.get("TANDEM_BIN", "tandem")


def run(args, stdout=None, fsize=None, cwd=None, timeout=120):
    def limit():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failing write returns EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run([TANDEM, *args], stdout=stdout if stdout else subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, preexec_fn=limit, cwd=cwd,
                          timeout=timeout)


@pytest.fixture(scope="module")
def tpch(tmp_path_factory):
    out = tmp_path_factory.mktemp("tpch") / "sf001"
    r = run(["datagen", "tpch", "--sf", "0.01", "--out", str(out)])
    assert r.returncode == 0, r.stderr
    return out


def leftovers(directory):
    return [p for p in glob.glob(os.path.join(str(directory), "**", "*"), recursive=True)
            if ".tmp-" in os.path.basename(p)]


STDOUT_COMMANDS = [
    ["sql", "SELECT 1"],
    ["sql", "SELECT 1", "--format", "csv"],
    ["sql", "SELECT 1", "--format", "jsonl"],
    ["sql", "SELECT * FROM nation", "--format", "table"],
    ["sql", "EXPLAIN SELECT * FROM nation"],
    ["explain", "SELECT count(*) FROM nation"],
    ["describe", "{nation}"],
    ["meta", "{nation_file}"],
    ["cat", "{nation}"],
    ["cat", "{nation}", "--format", "jsonl"],
    ["config", "--list"],
    ["version"],
    ["--help"],
    ["sql", "--help"],
]


@pytest.mark.parametrize("args", STDOUT_COMMANDS, ids=lambda a: " ".join(a)[:40])
def test_full_standard_output_fails_the_command(args, tpch):
    nation = str(tpch / "nation")
    nation_file = glob.glob(nation + "/*.parquet")[0]
    args = [a.format(nation=nation, nation_file=nation_file) for a in args]
    if args[0] in ("sql", "explain") and args[1] != "--help":
        args += ["--table", f"nation={nation}"]
    with open("/dev/full", "w") as full:
        r = run(args, stdout=full)
    assert r.returncode != 0, f"exit 0 although nothing reached stdout: {args}"
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "writing standard output failed" in lines[0], r.stderr


def test_output_file_that_cannot_grow(tpch, tmp_path):
    for name in ("out.parquet", "out.csv"):
        target = tmp_path / name
        r = run(["sql", "SELECT * FROM lineitem", "--table", f"lineitem={tpch / 'lineitem'}",
                 "--output", str(target)], fsize=64 << 10)
        assert r.returncode == 1, r.stderr
        assert f"cannot write {target}" in r.stderr and "File too large" in r.stderr, r.stderr
        assert not target.exists() and not leftovers(tmp_path)


def test_create_table_that_cannot_be_written(tpch, tmp_path):
    r = run(["sql", "CREATE TABLE big AS SELECT * FROM lineitem", "--table",
             f"lineitem={tpch / 'lineitem'}", "--table-dir", str(tmp_path)], fsize=64 << 10)
    assert r.returncode == 1 and "CREATE TABLE big" in r.stderr, r.stderr
    assert not (tmp_path / "big.parquet").exists() and not leftovers(tmp_path)


def test_datagen_that_cannot_write(tmp_path):
    r = run(["datagen", "tpch", "--sf", "0.01", "--out", str(tmp_path / "d")], fsize=64 << 10)
    assert r.returncode == 1 and "File too large" in r.stderr, r.stderr
    assert not leftovers(tmp_path)


def test_bench_report_that_cannot_be_written(tmp_path):
    results = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                           "results")
    folders = sorted(d for d in glob.glob(results + "/*/") if os.path.exists(d + "results.csv"))
    if not folders:
        pytest.skip("no committed benchmark results to render")
    copy = tmp_path / "report"
    copy.mkdir()
    with open(folders[0] + "results.csv") as src, open(copy / "results.csv", "w") as dst:
        dst.write(src.read())
    r = run(["bench", "report", str(copy)], fsize=1024)
    assert r.returncode == 1 and "cannot write" in r.stderr, r.stderr
    assert not leftovers(copy)


# Writes to cut short: (args, the file that must never appear). The SQL ones write 2.4 million
# rows (lineitem at SF0.01, 40 times), a few tenths of a second of writing.
COPIES = "(VALUES " + ", ".join(f"({i})" for i in range(40)) + ") v(copy)"
BIG = f"SELECT * FROM lineitem, {COPIES}"
SLOW_WRITES = {
    "create_table": (["sql", f"CREATE TABLE t AS {BIG}"], "t.parquet"),
    "output_parquet": (["sql", BIG, "--output", "o.parquet"], "o.parquet"),
    "output_csv": (["sql", BIG, "--output", "o.csv"], "o.csv"),
    "datagen": (["datagen", "tpch", "--sf", "1", "--out", "d"], None),
}


def signal_mid_write(args, cwd, sig):
    """Starts tandem, signals it as soon as a temporary file exists; None if it finished first."""
    p = subprocess.Popen([TANDEM, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True,
                         # a signal the parent ignores stays ignored: restore the default
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not leftovers(cwd) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    if p.poll() is None:
        p.send_signal(sig)
    err = p.communicate(timeout=60)[1]
    # The write may have ended between the look and the signal (its file renamed into place):
    # then nothing was unfinished, and this try says nothing.
    if p.returncode == 0 or "removed the unfinished" not in err:
        return None
    return p.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: s.name)
@pytest.mark.parametrize("case", sorted(SLOW_WRITES))
def test_signal_during_a_write_removes_its_temporary_files(case, sig, tpch, tmp_path):
    args, final = SLOW_WRITES[case]
    if args[0] == "sql":
        args = args + ["--table", f"lineitem={tpch / 'lineitem'}", "--table-dir", str(tmp_path)]
    for attempt in range(5):  # the write may end before the signal arrives: try again
        outcome = signal_mid_write(args, tmp_path, sig)
        if outcome:
            break
        for f in glob.glob(str(tmp_path / "*.parquet")) + glob.glob(str(tmp_path / "*.csv")):
            os.remove(f)
        assert not leftovers(tmp_path), leftovers(tmp_path)
    else:
        pytest.fail(f"{case} always finished before the signal arrived")
    code, err = outcome
    assert code == -sig, (code, err)
    assert f"cancelled by {sig.name}" in err, err
    assert "removed the unfinished" in err, err
    assert not leftovers(tmp_path), leftovers(tmp_path)
    if final:
        assert not (tmp_path / final).exists()
