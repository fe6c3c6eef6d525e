"""The driver's side of the results: coverage, per-table lines, and the one warehouse report."""

from __future__ import annotations

import html
import json
import os
import subprocess
from pathlib import Path
from xml.sax.saxutils import quoteattr


class CoverageError(Exception):
    """The tasks of a job did not return every planned unit exactly once."""


def check_coverage(job: str, planned: list[dict], got: list[dict]) -> None:
    """Every unit of `planned` exactly once in `got` (one result per unit id), else CoverageError naming
    the units missing, repeated or unknown."""
    want = [u["id"] for u in planned]
    have = [r["id"] for r in got]
    missing = sorted(set(want) - set(have))
    repeated = sorted({i for i in have if have.count(i) > 1})
    unknown = sorted(set(have) - set(want))
    if missing or repeated or unknown:
        raise CoverageError(f"job {job}: units missing {missing}, repeated {repeated}, not planned {unknown}")


def unit_file(work: Path, unit_id: str) -> Path:
    """Where the driver keeps a unit's report: named by the unit, overwritten by a later run."""
    return work / "units" / (unit_id.replace("/", "__") + ".json")


def _merge(args, files: list[Path], json_out: Path, junit: Path | None = None, html_out: Path | None = None) -> int:
    """`report merge --per-table` of `files`; its exit status (0, 1, 2 for a run that could not be replayed,
    3). Raises RuntimeError when the merge is refused."""
    cmd = [str(args.binary), "report", "merge", "--per-table", *map(str, files), "--json", str(json_out)]
    if junit:
        cmd += ["--junit", str(junit)]
    if html_out:
        cmd += ["--html", str(html_out)]
    env = dict(os.environ, PAIMON_PARITY_JAVA_TARGET=str(args.java_target))
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if not json_out.is_file() or json.loads(json_out.read_text() or "{}").get("status") != "complete":
        raise RuntimeError(f"report merge refused the unit reports (exit {r.returncode}): {r.stderr.strip()}")
    return r.returncode


def _retried(results: list[dict]) -> int:
    """Units whose result came from a later attempt (a unit's result carries the attempt that made it)."""
    return sum(1 for r in results if r["attempt"] > 0)


def _mode(run: dict) -> str:
    return run["mode"] if isinstance(run["mode"], str) else json.dumps(run["mode"])


def summarize_table(args, work: Path, name: str, unit_ids: list[str], results: list[dict]) -> tuple[str, int]:
    """One line for a table whose units are all done, and the rows it compared."""
    tail = f"{len(unit_ids)} unit(s), {_retried(results)} retried"
    if args.command == "audit":
        report = json.loads(results[0]["report"])
        verdict = (report.get("audit") or {}).get("verdict") or report.get("status")
        return f"table {name}: audit {verdict} (exit {report.get('exit_code')}), {tail}", 0
    out = work / "tables" / (name.replace("/", "__") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    _merge(args, [unit_file(work, i) for i in unit_ids], out)
    merged = json.loads(out.read_text())
    # The units of a table may hold other tables' scans: this table's runs are those named like it.
    its = [r for r in merged["runs"] if _table_name(r["table"], args) == name]
    parts, rows = [], 0
    for run in its:
        rep = run.get("report") or {}
        totals = rep.get("totals", {})
        n = sum((totals.get("stock_rows") or {}).values())
        rows += n
        if run.get("report") is None:
            parts.append(f"{_mode(run)}: ERROR {run.get('error') or run.get('first_problem') or ''}".strip())
        else:
            parts.append(f"{_mode(run)}: {rep.get('verdict')}, {totals.get('splits', 0)} splits, {n} rows")
    return f"table {name}: {'; '.join(parts)} ({tail})", rows


def _table_name(table: str, args) -> str:
    """The name `paimon-parity units` gave the table at `table` (the driver keeps them by location)."""
    return args.table_names.get(os.path.normpath(table), os.path.basename(table))


def write_warehouse_report(args, work: Path, tables: dict, results: dict, failures: dict, failed_attempts: int, timings: dict) -> int:
    """Writes the warehouse report and prints its summary; returns the exit status (worst table's)."""
    done = list(results.values())
    retried = _retried(done)
    spark = {
        "master": args.master,
        "units": len({i for ids in tables.values() for i in ids}),
        "tables": len(tables),
        "attempts": sum(r["attempt"] + 1 for r in done),
        "units_retried": retried,
        "failed_attempts": failed_attempts,
        "failed_tables": [{"table": n, "error": e} for n, e in sorted(failures.items())],
        "timings_s": {k: round(v, 2) for k, v in timings.items()},
        "unit_seconds": {r["id"]: round(r["seconds"], 2) for r in done},
        "unit_process_seconds": {r["id"]: round(r["process_seconds"], 2) for r in done},
        "unit_peak_rss_mib": {r["id"]: r["peak_rss_mib"] for r in done},
    }
    code = 2 if failures else 0
    if args.command == "audit":
        code = max(code, _audit_report(args, tables, results, spark))
    else:
        code = _replay_report(args, work, tables, results, failures, spark, code)
    print(
        f"{args.command} of {len(tables)} table(s) as {spark['units']} unit(s) on {args.master}: "
        f"{retried} unit(s) retried, {failed_attempts} failed attempt(s), {len(failures)} table(s) failed; "
        f"{timings['total_s']:.1f} s; exit {code}",
        flush=True,
    )
    return code


#: How bad an exit status is: 0 identical < 3 nothing compared < 1 different < 2 could not run.
SEVERITY = {0: 0, 3: 1, 1: 2, 2: 3}


def _replay_report(args, work: Path, tables: dict, results: dict, failures: dict, spark: dict, code: int) -> int:
    # Every unit that returned, failed tables' units left out (their table is reported as failed).
    ids = sorted({i for name, its in tables.items() if name not in failures for i in its if i in results})
    out = args.json or (work / "warehouse.json")
    merged_code = 0
    if ids:
        merged_code = _merge(args, [unit_file(work, i) for i in ids], out, args.junit, args.html)
        merged = json.loads(out.read_text())
    else:
        merged = {"schema": "paimon-parity-report", "command": "replay", "runs": [], "status": "complete"}
    worst = max([code, merged_code], key=lambda c: SEVERITY.get(c, 4))
    # The warehouse's totals: each table's worst run, splits and rows over every run.
    verdicts: dict[str, tuple[int, str]] = {}
    for run in merged.get("runs", []):
        name = _table_name(run["table"], args)
        code_of = run.get("exit_code", 2)
        if name not in verdicts or SEVERITY.get(code_of, 4) > SEVERITY.get(verdicts[name][0], 4):
            verdicts[name] = (code_of, run.get("verdict") or "error")
    for name in failures:
        verdicts[name] = (2, "failed")
    by_verdict: dict[str, int] = {}
    for _, verdict in verdicts.values():
        by_verdict[verdict] = by_verdict.get(verdict, 0) + 1
    totals = [(r.get("report") or {}).get("totals", {}) for r in merged.get("runs", [])]
    spark["warehouse"] = {
        "tables_by_verdict": by_verdict,
        "splits": sum(t.get("splits", 0) for t in totals),
        "stock_rows": sum(sum((t.get("stock_rows") or {}).values()) for t in totals),
        "native_rows": sum(sum((t.get("native_rows") or {}).values()) for t in totals),
    }
    merged["spark"] = spark
    merged["exit_code"] = worst
    out.write_text(json.dumps(merged, indent=2))
    for run in merged.get("runs", []):
        if run.get("verdict") != "identical":
            print(f"  {_table_name(run['table'], args)} {_mode(run)}: {run.get('verdict')} {run.get('first_problem') or ''}".rstrip(), flush=True)
    for n, e in sorted(failures.items()):
        print(f"  {n}: failed after every attempt: {e}", flush=True)
    w = spark["warehouse"]
    print(
        f"tables: {', '.join(f'{n} {v}' for v, n in sorted(w['tables_by_verdict'].items()))}; "
        f"{w['splits']} splits, {w['stock_rows']} rows compared",
        flush=True,
    )
    return worst


def _audit_report(args, tables: dict, results: dict, spark: dict) -> int:
    out_tables = []
    worst = 0
    for name in sorted(tables):
        if tables[name][0] not in results:
            continue
        report = json.loads(results[tables[name][0]]["report"])
        exit_code = report.get("exit_code", 2)
        worst = max(worst, exit_code, key=lambda c: SEVERITY.get(c, 4))
        audit = report.get("audit") or {}
        verdict = audit.get("verdict") or report.get("status")
        out_tables.append({"name": name, "table": audit.get("table"), "verdict": verdict, "exit_code": exit_code, "report": report})
    out = {"schema": "paimon-parity-report", "command": "audit", "exit_code": worst, "tables": out_tables, "spark": spark}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    if args.junit:
        cases = []
        for t in out_tables:
            body = "" if t["exit_code"] == 0 else f"<failure message={quoteattr(str(t['verdict']))}/>"
            cases.append(f"  <testcase classname=\"audit\" name={quoteattr(t['name'])}>{body}</testcase>")
        failed = sum(1 for t in out_tables if t["exit_code"] != 0)
        args.junit.write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="paimon-parity audit" tests="{len(out_tables)}" failures="{failed}">\n'
            + "\n".join(cases)
            + "\n</testsuite>\n"
        )
    if args.html:
        rows = "".join(
            f"<tr><td>{html.escape(t['name'])}</td><td>{html.escape(str(t['verdict']))}</td><td>{t['exit_code']}</td></tr>" for t in out_tables
        )
        args.html.write_text(
            "<!doctype html><meta charset=utf-8><title>paimon-parity audit</title>"
            f"<h1>Audit of {len(out_tables)} table(s)</h1><table><tr><th>table</th><th>verdict</th><th>exit</th></tr>{rows}</table>"
        )
    for t in out_tables:
        if t["exit_code"] != 0:
            print(f"  {t['name']}: {t['verdict']} (exit {t['exit_code']})", flush=True)
    return worst
