"""What one Spark task does: run `paimon-parity` on one unit and return its JSON report.

A unit's returned report is its only output: nothing is appended to shared files and no accumulator is
touched, so a retried task counts once. The child writes its report into a directory named by the unit and
the attempt, which the task removes after reading it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .bundle import ARCHIVE_NAME

#: Environment variable (of the driver) naming a unit whose first attempt is made to fail after its replay
#: ran: the retry must leave the warehouse report as it is without the failure.
FAIL_UNIT_ENV = "PAIMON_PARITY_SPARK_FAIL_UNIT"

#: Exit statuses of `paimon-parity` that are results, not failures: identical, different or incomplete, a
#: unit that could not be replayed (its report says why), nothing compared. Anything else (a signal, a panic)
#: fails the task, and Spark retries it.
RESULT_CODES = {0, 1, 2, 3}


class OverBudget(RuntimeError):
    """The replay process went over its memory budget; the message names the setting to raise."""


class InjectedFailure(RuntimeError):
    """The failure `PAIMON_PARITY_SPARK_FAIL_UNIT` asked for (first attempt only)."""


@dataclass
class TaskSettings:
    """What every task gets from the driver (pickled into the closure; no secret goes to Spark's conf)."""

    command: str  # `replay` or `audit`
    paimon_version: str
    readers: list[str]  # `replay --reader`
    reader_commands: list[str]  # `replay --reader-command NAME=COMMAND`
    threads: int  # spark.task.cpus
    memory_mib: int  # this task's share of spark.executor.memoryOverhead
    overhead_setting: str  # how the driver got memory_mib, for the message of OverBudget
    fail_unit: str | None = None
    env: dict[str, str] = field(default_factory=dict)  # store credentials and endpoint (AWS_*)
    options_text: str | None = None  # the --options-file content (store options), written 0600
    local_bundle: str | None = None  # the unpacked bundle when not shipped (tests without addArchive)


def bundle_dir(settings: TaskSettings) -> Path:
    """Where the archive is unpacked on this executor: SparkFiles (addArchive), else the working directory
    (`spark-submit --archives bundle.tar.gz#pp` on YARN and Kubernetes)."""
    if settings.local_bundle:
        return Path(settings.local_bundle)
    try:
        from pyspark import SparkFiles

        p = Path(SparkFiles.get(ARCHIVE_NAME))
        if (p / "bin" / "paimon-parity").is_file():
            return p
    except Exception:  # noqa: BLE001 - no SparkContext files: fall back to the working directory
        pass
    p = Path.cwd() / ARCHIVE_NAME
    if (p / "bin" / "paimon-parity").is_file():
        return p
    raise FileNotFoundError(
        f"the paimon-parity archive is not unpacked here (looked in SparkFiles and {p}): ship it with "
        f"--archives bundle.tar.gz#{ARCHIVE_NAME}"
    )


def _rss_mib(pid: int) -> int:
    """Resident memory of process `pid` in MiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return 0
    return 0


def command_line(binary: Path, unit: dict, settings: TaskSettings, out: Path, options_file: Path | None) -> list[str]:
    """The child's command line for `unit`: `replay --units` of a `paimon-parity units` unit (its scans
    written beside `out`), or `audit` of an audit unit's table."""
    args = [str(binary)]
    if options_file is not None:
        args += ["--options-file", str(options_file)]
    if settings.command == "audit":
        scan = unit["scans"][0]
        args += ["audit", scan["table"], "--paimon-version", settings.paimon_version, "--json", str(out)]
        if scan.get("to_snapshot") is not None:
            args += ["--to-snapshot", str(scan["to_snapshot"])]
        return args
    unit_file = out.parent / "unit.json"
    unit_file.write_text(
        json.dumps({"scans": [{k: s[k] for k in ("table", "mode", "to_snapshot", "shard")} for s in unit["scans"]]})
    )
    args += [
        "replay",
        "--units",
        str(unit_file),
        "--paimon-version",
        settings.paimon_version,
        "--threads",
        str(settings.threads),
        # Decoded batches read ahead: a quarter of the task's memory (the JVM heap takes half).
        "--memory-budget",
        str(max(64, settings.memory_mib // 4)),
        "-q",
        "--json",
        str(out),
    ]
    for reader in settings.readers:
        args += ["--reader", reader]
    for declared in settings.reader_commands:
        args += ["--reader-command", declared]
    return args


def run_unit(unit: dict, settings: TaskSettings, attempt: int) -> dict:
    """Runs `unit` and returns {id, attempt, exit_code, report (JSON text), seconds, stderr_tail}.

    Raises OverBudget when the process passes its memory budget, InjectedFailure for the injected failure,
    RuntimeError when the process dies of a signal or a panic (Spark retries the task).
    """
    started = time.monotonic()
    pp = bundle_dir(settings)
    binary = pp / "bin" / "paimon-parity"
    work = Path(tempfile.mkdtemp(prefix=f"pp-unit-{attempt}-"))
    try:
        options_file = None
        if settings.options_text is not None:
            options_file = work / "file-io-options"
            fd = os.open(options_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(settings.options_text)
        out = work / "report.json"
        env = dict(os.environ)
        env.update(settings.env)
        env["PAIMON_PARITY_JAVA_TARGET"] = str(pp / "java")
        env["PAIMON_PARITY_XMX"] = f"{max(256, settings.memory_mib // 2)}m"
        env["PAIMON_PARITY_PAIMON_VERSION"] = settings.paimon_version
        args = command_line(binary, unit, settings, out, options_file)
        spawned = time.monotonic()
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=work)
        peak = 0
        stderr_chunks: list[bytes] = []
        import threading

        reader = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read()), daemon=True)
        reader.start()
        while proc.poll() is None:
            rss = _rss_mib(proc.pid)
            peak = max(peak, rss)
            if rss > settings.memory_mib:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                raise OverBudget(
                    f"unit {unit['id']}: the paimon-parity process reached {rss} MiB, over this task's budget "
                    f"of {settings.memory_mib} MiB ({settings.overhead_setting}); raise "
                    f"spark.executor.memoryOverhead (or --task-memory-mib), or lower --unit-size"
                )
            time.sleep(0.1)
        reader.join(timeout=10)
        stderr = b"".join(stderr_chunks).decode(errors="replace")
        code = proc.returncode
        if code not in RESULT_CODES:
            raise RuntimeError(
                f"unit {unit['id']}: paimon-parity ended with status {code}"
                f"{' (killed by signal ' + str(-code) + ')' if code < 0 else ''}: {stderr[-2000:]}"
            )
        if not out.is_file():
            raise RuntimeError(f"unit {unit['id']}: paimon-parity exited {code} without a report: {stderr[-2000:]}")
        report = out.read_text()
        status = json.loads(report).get("status")
        if status != "complete":
            # The process could not run its unit at all (e.g. its JVM did not start): retried.
            message = (json.loads(report).get("error") or {}).get("message", "no message")
            raise RuntimeError(f"unit {unit['id']}: paimon-parity did not run it (status {status}): {message}")
        ended = time.monotonic()
        if settings.fail_unit and settings.fail_unit == unit["id"] and attempt == 0:
            raise InjectedFailure(
                f"unit {unit['id']}: failure injected by {FAIL_UNIT_ENV} into its first attempt (after its "
                f"replay ran), to check that its retry counts once"
            )
        return {
            "id": unit["id"],
            "attempt": attempt,
            "exit_code": code,
            "report": report,
            "seconds": ended - started,
            "setup_seconds": spawned - started,
            "process_seconds": ended - spawned,
            "peak_rss_mib": peak,
            "stderr_tail": stderr[-1000:],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_partition(settings: TaskSettings):
    """The function given to `mapPartitions`: runs each unit of the partition (one per partition)."""

    def run(units):
        from pyspark import TaskContext

        ctx = TaskContext.get()
        attempt = ctx.attemptNumber() if ctx is not None else 0
        for unit in units:
            yield run_unit(unit, settings, attempt)

    return run
