"""The Spark driver of `scripts/spark-replay` and `scripts/spark-audit`.

1. Plans: `paimon-parity units` lists the tables, pins each to its latest snapshot, and cuts each scan into
   shards of similar size (units).
2. Ships the binary and the Java side as one archive (`addArchive`, or `--archives …#pp` given to
   spark-submit).
3. Runs one Spark job per table (several at once), one task per unit; a task starts `paimon-parity` on its
   unit and returns the report JSON as its result (task.py).
4. Checks coverage (every planned unit exactly once), writes each unit's report into `--work`, merges each
   table's units (`report merge --per-table`) and prints one line per finished table.
5. Merges every unit into one warehouse report (`--json`, `--junit`, `--html`), with a `spark` section: units,
   attempts, retries, times. Exit status: the worst of the tables' (2 when a table could not be replayed).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import bundle as bundle_mod
from .task import FAIL_UNIT_ENV, TaskSettings, run_partition
from .warehouse import CoverageError, check_coverage, summarize_table, unit_file

#: Store settings forwarded from the driver's environment to each task's process (never into Spark's conf).
FORWARDED_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "AWS_ALLOW_HTTP",
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="spark-replay",
        description="Replay (or audit) every table of a warehouse as Spark tasks, into one report.",
    )
    p.add_argument("command", choices=["replay", "audit", "pack"], help="replay or audit the locations; pack: write the archive and the driver's package into --out for spark-submit")
    p.add_argument("locations", nargs="*", help="warehouses, databases, folders of tables or tables (paths or s3:// URIs)")
    p.add_argument("--out", type=Path, default=None, help="pack: the folder to write paimon-parity-bundle.tar.gz and paimon_parity_spark.zip into")
    p.add_argument("--master", default=os.environ.get("SPARK_MASTER"), help="Spark master (default: spark-submit's, else local[2,2]: 2 slots, 2 attempts per task)")
    p.add_argument("--mode", default="stream", help="replay scans, as `replay --mode` (default stream)")
    p.add_argument("--reader", default="native", help="readers compared with the released one, as `replay --reader` (default native)")
    p.add_argument("--reader-command", action="append", default=[], metavar="NAME=COMMAND", help="declares an external reader, as `replay --reader-command` (repeatable)")
    p.add_argument("--paimon-version", default=os.environ.get("PAIMON_PARITY_PAIMON_VERSION", "1.0.0"))
    p.add_argument("--unit-size", default="256m", help="target size of table files per unit, e.g. 256m, 64k (default 256m)")
    p.add_argument("--json", type=Path)
    p.add_argument("--junit", type=Path)
    p.add_argument("--html", type=Path)
    p.add_argument("--work", type=Path, default=None, help="unit reports and per-table reports (default a folder under the cache)")
    p.add_argument("--binary", type=Path, required=True, help="the paimon-parity binary shipped to the executors")
    p.add_argument("--java-target", type=Path, required=True, help="the folder holding paimon-<V>/ builds of the Java side")
    p.add_argument("--bundle", type=Path, default=None, help="an archive already built (default: built and cached)")
    p.add_argument("--shipped", action="store_true", help="the archive was given to spark-submit as --archives …#pp: do not add it")
    p.add_argument("--task-cpus", type=int, default=1, help="spark.task.cpus, and the replay's --threads (default 1)")
    p.add_argument("--task-memory-mib", type=int, default=3072, help="memory of one task's replay process: JVM heap half, read-ahead a quarter (default 3072)")
    p.add_argument("--options-file", type=Path, default=None, help="store options (as paimon-parity --options-file)")
    p.add_argument("--tables-at-once", type=int, default=0, help="Spark jobs (tables) in flight (default: twice the slots)")
    p.add_argument("--cache", type=Path, default=Path(os.environ.get("PAIMON_PARITY_CACHE", Path.home() / ".cache" / "paimon-parity")))
    return p.parse_args(argv)


def log(msg: str) -> None:
    print(f"[spark-{ARGS.command}] {msg}", file=sys.stderr, flush=True)


def plan_units(args: argparse.Namespace, work: Path) -> list[dict]:
    """Runs `paimon-parity units` on the driver; an audit has one unit per table (its pin)."""
    out = work / "units.json"
    cmd = [str(args.binary)]
    if args.options_file:
        cmd += ["--options-file", str(args.options_file)]
    mode = args.mode if args.command == "replay" else "batch"
    cmd += ["units", *args.locations, "--mode", mode, "--unit-size", args.unit_size, "--paimon-version", args.paimon_version, "--json", str(out)]
    env = dict(os.environ, PAIMON_PARITY_JAVA_TARGET=str(args.java_target))
    r = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"spark-{args.command}: planning failed (paimon-parity units, exit {r.returncode}): {r.stderr.strip()}")
    plan = json.loads(out.read_text())
    # The name each table has in the plan, by its location as given and as replay canonicalizes it.
    args.table_names = {}
    for t in plan["tables"]:
        args.table_names[os.path.normpath(t["table"])] = t["name"]
        args.table_names[os.path.realpath(t["table"])] = t["name"]
    if args.command == "replay":
        return plan["units"]
    return [
        {"id": f"{t['name']}/audit", "bytes": 0, "scans": [{"table": t["table"], "name": t["name"], "mode": "audit", "to_snapshot": t["to_snapshot"], "shard": "1/1"}]}
        for t in plan["tables"]
    ]


def mib(value: str) -> int:
    """A Spark memory setting (`6g`, `512m`, `1024` MiB) in MiB."""
    v = value.strip().lower().removesuffix("b")
    units = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
    if v and v[-1] in units:
        return int(float(v[:-1]) * units[v[-1]])
    return int(v)


def local_slots(master: str) -> int:
    """Task slots of a local master: `local` 1, `local[N]` and `local[N,F]` N, `local[*]` the cores."""
    import re

    m = re.match(r"local\[(\*|\d+)", master)
    if not m:
        return 1
    return (os.cpu_count() or 1) if m.group(1) == "*" else int(m.group(1))


def spark_session(args: argparse.Namespace):
    """The session, and each task's memory budget in MiB with the words that say where it comes from.

    A task's replay process (its JVM heap, native memory) lives outside Spark's heap, in
    `spark.executor.memoryOverhead`, shared by the tasks an executor runs at once (`spark.executor.cores` /
    `spark.task.cpus`). When spark-submit set the overhead, each task gets its share; else the driver sets it
    to `--task-memory-mib` per task.
    """
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    conf = SparkConf()
    master = args.master or conf.get("spark.master", None) or "local[2,2]"
    args.master = master
    builder = SparkSession.builder.appName(f"paimon-parity {args.command}").master(master)
    task_cpus = int(conf.get("spark.task.cpus", str(args.task_cpus)))
    args.task_cpus = task_cpus
    local = master.startswith("local")
    executor_cores = int(conf.get("spark.executor.cores", str(local_slots(master) if local else 1)))
    at_once = max(1, executor_cores // task_cpus)
    if conf.contains("spark.executor.memoryOverhead"):
        overhead = mib(conf.get("spark.executor.memoryOverhead"))
        task_mib = overhead // at_once
    else:
        task_mib = args.task_memory_mib
        overhead = task_mib * at_once
        builder = builder.config("spark.executor.memoryOverhead", f"{overhead}m")
    setting = f"spark.executor.memoryOverhead {overhead} MiB over {at_once} task(s) at once"
    builder = builder.config("spark.task.cpus", str(task_cpus))
    if local:
        # Loopback only: Spark picks a non-loopback interface unless told.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        builder = builder.config("spark.ui.enabled", "false")
    # Spark's own progress bar where someone watches; the per-table lines either way.
    builder = builder.config("spark.ui.showConsoleProgress", str(sys.stderr.isatty()).lower())
    return builder.getOrCreate(), task_mib, setting


def main(argv: list[str] | None = None) -> int:
    global ARGS
    args = ARGS = parse_args(argv if argv is not None else sys.argv[1:])
    if args.command == "pack":
        return pack(args)
    if not args.locations:
        raise SystemExit(f"spark-{args.command}: give the warehouses or tables to {args.command}")
    # Tasks run in directories of their own: local locations are made absolute (URIs stay as given).
    args.locations = [loc if "://" in loc else os.path.abspath(loc) for loc in args.locations]
    t0 = time.monotonic()
    work = args.work or (args.cache / "spark" / "work")
    work.mkdir(parents=True, exist_ok=True)
    for old in list(work.glob("units/*.json")) + list(work.glob("tables/*.json")):
        old.unlink()
    units = plan_units(args, work)
    # Which units hold each table's scans, and the Spark jobs: the shards of one table's large scans
    # together, each pack of whole scans alone.
    tables: dict[str, list[str]] = {}
    jobs: dict[str, list[dict]] = {}
    for u in units:
        for scan in u["scans"]:
            if u["id"] not in tables.setdefault(scan["name"], []):
                tables[scan["name"]].append(u["id"])
        key = u["scans"][0]["name"] if len(u["scans"]) == 1 and not u["id"].startswith("pack-") else u["id"]
        jobs.setdefault(key, []).append(u)
    plan_s = time.monotonic() - t0
    log(f"planned {len(units)} unit(s) over {len(tables)} table(s) in {plan_s:.1f} s, as {len(jobs)} Spark job(s)")
    if not units:
        log("no table to replay: nothing compared")
        return 3

    t = time.monotonic()
    archive = None
    if not args.shipped:
        archive = args.bundle or bundle_mod.build(args.binary, args.java_target, [args.paimon_version], args.cache / "spark")
        log(f"archive {archive} ({archive.stat().st_size >> 20} MiB) ready in {time.monotonic() - t:.1f} s")
    bundle_s = time.monotonic() - t

    spark, task_mib, memory_setting = spark_session(args)
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    t = time.monotonic()
    if not args.shipped:
        sc.addArchive(f"{archive}#{bundle_mod.ARCHIVE_NAME}")
    ship_s = time.monotonic() - t
    options_text = args.options_file.read_text() if args.options_file else None
    settings = TaskSettings(
        command=args.command,
        paimon_version=args.paimon_version,
        readers=args.reader.split(","),
        reader_commands=list(args.reader_command),
        threads=args.task_cpus,
        memory_mib=task_mib,
        overhead_setting=memory_setting,
        fail_unit=os.environ.get(FAIL_UNIT_ENV) or None,
        env={k: os.environ[k] for k in FORWARDED_ENV if k in os.environ},
        options_text=options_text,
    )
    slots = sc.defaultParallelism
    at_once = args.tables_at_once or max(2, 2 * slots)
    progress = {"done": 0, "rows": 0, "tables": 0}
    lock = threading.Lock()
    results: dict[str, dict] = {}  # unit id -> the task's result
    failures: dict[str, str] = {}  # table -> why its units failed every attempt

    def run_job(key: str) -> None:
        its = jobs[key]
        sc.setJobGroup(f"pp-{key}", f"paimon-parity {args.command} {key}: {len(its)} unit(s)")
        got = sc.parallelize(its, len(its)).mapPartitions(run_partition(settings)).collect()
        check_coverage(key, its, got)
        for r in got:
            path = unit_file(work, r["id"])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(r["report"])
        with lock:
            for r in got:
                results[r["id"]] = r
            progress["done"] += len(got)
            # One line per table whose units are all done now.
            for name, ids in tables.items():
                if name not in failures and any(r["id"] in ids for r in got) and all(i in results for i in ids):
                    line, rows = summarize_table(args, work, name, ids, [results[i] for i in ids])
                    progress["rows"] += rows
                    progress["tables"] += 1
                    log(line)

    stop = threading.Event()

    def failed_attempts() -> int:
        """Failed task attempts so far, from Spark's own status (its stages of this run's jobs)."""
        tracker = sc.statusTracker()
        failed = 0
        for key in jobs:
            for job in tracker.getJobIdsForGroup(f"pp-{key}"):
                info = tracker.getJobInfo(job)
                for stage in info.stageIds if info else []:
                    s = tracker.getStageInfo(stage)
                    failed += s.numFailedTasks if s else 0
        return failed

    def report_progress() -> None:
        while not stop.wait(5):
            failed = failed_attempts()
            with lock:
                log(f"units {progress['done']}/{len(units)} done, {failed} failed attempt(s), tables {progress['tables']}/{len(tables)}, rows compared {progress['rows']}")

    watcher = threading.Thread(target=report_progress, daemon=True)
    watcher.start()
    t = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=at_once) as pool:
        futures = {pool.submit(run_job, key): key for key in sorted(jobs, key=lambda k: -sum(u["bytes"] or 0 for u in jobs[k]))}
        for f in concurrent.futures.as_completed(futures):
            key = futures[f]
            try:
                f.result()
            except CoverageError as e:
                stop.set()
                raise SystemExit(f"spark-{args.command}: {e}: refusing to merge")
            except Exception as e:  # noqa: BLE001 - a job whose tasks failed every attempt
                why = task_error(e)
                with lock:
                    for name, ids in tables.items():
                        if any(u["id"] in ids for u in jobs[key]) and name not in failures:
                            failures[name] = why
                            log(f"table {name}: FAILED after every attempt: {why}")
    stop.set()
    run_s = time.monotonic() - t
    failed_total = failed_attempts()
    spark.stop()

    from .warehouse import write_warehouse_report

    code = write_warehouse_report(
        args,
        work,
        tables,
        results,
        failures,
        failed_total,
        timings={"plan_s": plan_s, "bundle_s": bundle_s, "ship_s": ship_s, "run_s": run_s, "total_s": time.monotonic() - t0},
    )
    return code


ARGS: argparse.Namespace


def pack(args: argparse.Namespace) -> int:
    """Writes what `spark-submit` needs into `--out`: the archive (`--archives …#pp`) and this package
    (`--py-files`), and prints the command."""
    import shutil
    import zipfile

    if args.out is None:
        raise SystemExit("spark-replay pack: give --out DIR")
    args.out.mkdir(parents=True, exist_ok=True)
    archive = bundle_mod.build(args.binary, args.java_target, [args.paimon_version], args.cache / "spark")
    target = args.out / "paimon-parity-bundle.tar.gz"
    shutil.copyfile(archive, target)
    package = Path(__file__).resolve().parent
    zipped = args.out / "paimon_parity_spark.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        for f in sorted(package.glob("*.py")):
            z.write(f, f"paimon_parity_spark/{f.name}")
    shutil.copyfile(package.parent / "submit.py", args.out / "submit.py")
    print(f"wrote {target} ({target.stat().st_size >> 20} MiB, Paimon {args.paimon_version}), {zipped} and {args.out / 'submit.py'}")
    print(
        f"spark-submit --archives {target}#pp --py-files {zipped} {args.out / 'submit.py'} replay WAREHOUSE "
        f"--shipped --binary pp/bin/paimon-parity --java-target pp/java --paimon-version {args.paimon_version}"
    )
    return 0


def task_error(e: Exception) -> str:
    """The message of the exception a task raised (the last `Name: message` line of the Python traceback
    Spark wraps it in), else the first line."""
    import re

    lines = str(e).strip().splitlines()
    for line in reversed(lines):
        m = re.match(r"^\s*(?:[\w.]+\.)?(OverBudget|InjectedFailure|RuntimeError|FileNotFoundError|OSError): (.*)", line)
        if m:
            return f"{m.group(1)}: {m.group(2)}"[:1000]
    return (lines[0] if lines else repr(e))[:1000]


if __name__ == "__main__":
    sys.exit(main())
