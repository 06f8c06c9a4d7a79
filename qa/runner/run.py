"""The local teuthology runner: smrstore's QA suites (qa/suites/, teuthology's format) run
on this one machine with teuthology's own code.

  matrix  builds a suite's job matrix with teuthology.suite.build_matrix.build_matrix and
          merges each job's fragments with teuthology.suite.merge.config_merge (premerge and
          postmerge scripts, as teuthology-suite does), and prints it: one line per job and
          the facets with how many jobs each member is in.
  run     the same matrix, then every job in turn, each in a child process (`job`) with its
          own archive directory and log; prints a PASS/FAIL line per job as it ends and a
          summary with each job's time and log.
  lint    every job of the suites merged and checked without running it: each task resolves
          to a qa/tasks function (teuthology.run_tasks.get_task), cluster jobs have osd roles
          and an smrstore objectstore, realm conversion only on hybrid drives.
  job     one job: its merged YAML run by teuthology.run_tasks.run_tasks (tasks from
          qa/tasks/, imported as `tasks.<name>` exactly as in Ceph's qa/), ctx.archive the
          job's directory, teuthology's log lines in ARCHIVE/teuthology.log.

Subsets: `--subset I/N` is teuthology's (a good subset: every facet member appears in each of
the N parts); `--seed S` makes the `$` picks and subsets repeatable. `--filter A,B` keeps
jobs whose description contains any of A, B; `--filter-out` drops them (teuthology-suite's
options of the same names).
"""
from __future__ import annotations

import argparse
import collections
import logging
import os
import re
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml  # type: ignore[import]  # Debian has no types-PyYAML

HERE = os.path.dirname(os.path.abspath(__file__))
QA = os.path.dirname(HERE)
SUITES = os.path.join(QA, "suites")

Job = Tuple[str, List[str], Dict[str, Any]]


def build_jobs(suite: str, subset: Optional[Tuple[int, int]], seed: int,
               filters: Sequence[str], filters_out: Sequence[str]) -> List[Job]:
    from teuthology.suite.build_matrix import build_matrix
    from teuthology.suite.merge import config_merge

    path = os.path.join(SUITES, suite)
    if not os.path.exists(path):
        raise SystemExit("run.py: no suite %s (looked in %s)" % (suite, path))
    configs = build_matrix(path, subset=subset, seed=seed)
    jobs: List[Job] = []
    for desc, paths, conf in config_merge(configs, suite_name=suite, seed=seed):
        if filters and not any(f in desc for f in filters):
            continue
        if filters_out and any(f in desc for f in filters_out):
            continue
        conf["description"] = desc
        jobs.append((desc, paths, conf))
    return jobs


def facets(jobs: Sequence[Job]) -> Dict[str, collections.Counter]:
    """facet directory -> member -> jobs that use it, read from the fragment paths."""
    out: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for _, paths, _ in jobs:
        for p in paths:
            rel = os.path.relpath(p, SUITES)
            parts = rel.split(os.sep)
            if len(parts) >= 2:
                out["/".join(parts[:-1])][re.sub(r"\.yaml$", "", parts[-1])] += 1
    return out


def print_matrix(suite: str, jobs: Sequence[Job], args: argparse.Namespace) -> None:
    sub = "" if not args.subset else " subset %s" % args.subset
    print("suite %s:%s seed %d: %d jobs" % (suite, sub, args.seed, len(jobs)))
    for i, (desc, _, _) in enumerate(jobs):
        print("  %3d  %s" % (i, desc))
    print("facets (member: jobs):")
    for f, c in sorted(facets(jobs).items()):
        print("  %-40s %s" % (f, ", ".join("%s: %d" % kv for kv in sorted(c.items()))))


def parse_subset(s: Optional[str]) -> Optional[Tuple[int, int]]:
    if not s:
        return None
    m = re.fullmatch(r"(\d+)/(\d+)", s)
    if not m or int(m.group(1)) >= int(m.group(2)):
        raise SystemExit("run.py: --subset %s: want I/N with 0 <= I < N" % s)
    return int(m.group(1)), int(m.group(2))


def cmd_matrix(args: argparse.Namespace) -> int:
    for suite in args.suite:
        jobs = build_jobs(suite, parse_subset(args.subset), args.seed, split(args.filter), split(args.filter_out))
        print_matrix(suite, jobs, args)
    return 0


def split(s: Optional[str]) -> List[str]:
    return [x for x in (s or "").split(",") if x]


def cmd_run(args: argparse.Namespace) -> int:
    run_dir = os.path.abspath(args.archive or os.path.join(
        "/var/tmp/smrstore-teuthology", time.strftime("run-%Y%m%d-%H%M%S")))
    os.makedirs(run_dir, exist_ok=True)
    all_jobs: List[Job] = []
    for suite in args.suite:
        jobs = build_jobs(suite, parse_subset(args.subset), args.seed, split(args.filter), split(args.filter_out))
        print_matrix(suite, jobs, args)
        all_jobs += jobs
    if args.max_jobs:
        all_jobs = all_jobs[:args.max_jobs]
    print("running %d jobs; archive %s" % (len(all_jobs), run_dir), flush=True)
    results = []
    t_run = time.monotonic()
    for n, (desc, _, conf) in enumerate(all_jobs):
        jdir = os.path.join(run_dir, "%03d" % n)
        os.makedirs(jdir, exist_ok=True)
        conf = dict(conf)
        conf["archive_path"] = jdir
        conf["job_id"] = "%03d" % n
        with open(os.path.join(jdir, "orig.config.yaml"), "w") as f:
            yaml.safe_dump(conf, f, default_flow_style=False)
        timeout = int(conf.get("timeout", args.timeout))
        t0 = time.monotonic()
        logf = os.path.join(jdir, "teuthology.log")
        with open(os.path.join(jdir, "child.out"), "w") as out:
            try:
                rc = subprocess.run([sys.executable, os.path.abspath(__file__), "job", jdir],
                                    stdout=out, stderr=subprocess.STDOUT, timeout=timeout).returncode
                why = ""
            except subprocess.TimeoutExpired:
                rc, why = 124, "timed out after %d s" % timeout
        secs = time.monotonic() - t0
        summary = _read_summary(jdir)
        if rc != 0 and not why:
            why = summary.get("failure_reason", "exit %d" % rc)
        status = "PASS" if rc == 0 else "FAIL"
        results.append((n, desc, status, secs, why, logf))
        print("%s %3d %s (%.0f s)%s" % (status, n, desc, secs, "" if rc == 0 else ": " + str(why)[:300]), flush=True)
        if rc != 0:
            _print_tail(logf)
    total = time.monotonic() - t_run
    passed = sum(1 for r in results if r[2] == "PASS")
    print("\nsummary: %d jobs, %d passed, %d failed, %.0f s (%s)" % (
        len(results), passed, len(results) - passed, total, time.strftime("%H:%M:%S", time.gmtime(total))))
    for n, desc, status, secs, why, logf in results:
        print("  %s %5.0f s  %s\n         log: %s%s" % (status, secs, desc, logf, "" if not why else "\n         " + str(why)[:300]))
    with open(os.path.join(run_dir, "summary.yaml"), "w") as f:
        yaml.safe_dump({"jobs": len(results), "passed": passed, "seconds": round(total),
                        "results": [{"job": n, "description": d, "status": s, "seconds": round(t), "reason": w,
                                     "log": lg} for n, d, s, t, w, lg in results]}, f)
    return 0 if passed == len(results) else 1


def _read_summary(jdir: str) -> Dict[str, Any]:
    try:
        with open(os.path.join(jdir, "summary.yaml")) as f:
            return yaml.safe_load(f) or {}
    except OSError:
        return {}


def _print_tail(logf: str, n: int = 25) -> None:
    try:
        with open(logf, errors="replace") as f:
            lines = f.readlines()[-n:]
    except OSError:
        return
    for line in lines:
        print("    | " + line.rstrip())


def lint_job(desc: str, conf: Dict[str, Any]) -> List[str]:
    """What is wrong with one merged job, without running it: every task resolves to a
    function of qa/tasks (teuthology's own lookup), a job that starts smrstore_cluster has
    osd roles and an smrstore objectstore, a realm-conversion thrasher has hybrid drives."""
    from teuthology.run_tasks import get_task

    problems: List[str] = []
    tasks = conf.get("tasks") or []
    if not tasks:
        problems.append("no tasks")
    names = []
    for t in tasks:
        if not isinstance(t, dict) or len(t) != 1:
            problems.append("task entry %r is not a one-key mapping" % (t,))
            continue
        ((name, _),) = t.items()
        names.append(name)
        try:
            get_task(name.replace("-", "_"))
        except (ImportError, AttributeError) as e:
            problems.append("task %s does not resolve: %s" % (name, e))
    ceph = (conf.get("overrides") or {}).get("ceph") or {}
    if "smrstore_cluster" in names:
        if names[0] != "smrstore_cluster":
            problems.append("smrstore_cluster is not the first task (%s)" % names)
        roles = [r for host in conf.get("roles") or [] for r in host]
        if not any(r.startswith("osd.") for r in roles):
            problems.append("no osd roles")
        store = ((ceph.get("conf") or {}).get("osd") or {}).get("osd objectstore")
        if store != "smrstore":
            problems.append("osd objectstore is %r, not smrstore" % store)
        drive = str((ceph.get("smrstore") or {}).get("drive", ""))
        for t in tasks:
            cfg = t.get("smrstore_thrash") if isinstance(t, dict) else None
            if cfg and cfg.get("kind") == "realm_conversion" and "realms=" not in drive:
                problems.append("realm_conversion thrasher without hybrid drives")
    return ["%s: %s" % (desc, p) for p in problems]


def cmd_lint(args: argparse.Namespace) -> int:
    sys.path.insert(0, QA)
    total, bad = 0, []
    for suite in args.suite:
        jobs = build_jobs(suite, None, args.seed, [], [])
        total += len(jobs)
        for desc, _, conf in jobs:
            bad += lint_job(desc, conf)
    for b in bad:
        print("lint: " + b)
    print("lint: %d jobs of %s: %s" % (total, ", ".join(args.suite), "%d problems" % len(bad) if bad else "ok"))
    return 1 if bad else 0


def cmd_job(args: argparse.Namespace) -> int:
    """One job, as teuthology's run.py would run it on a test node."""
    from teuthology.run_tasks import run_tasks

    jdir = os.path.abspath(args.archive)
    with open(os.path.join(jdir, "orig.config.yaml")) as f:
        config = yaml.safe_load(f)
    handler = logging.FileHandler(os.path.join(jdir, "teuthology.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s.%(msecs)03d %(levelname)s:%(name)s:%(message)s",
                                           "%Y-%m-%dT%H:%M:%S"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    sys.path.insert(0, QA)  # `tasks.<name>` = qa/tasks/<name>.py, as in Ceph's qa/
    ctx = argparse.Namespace(config=config, summary={"success": True}, archive=jdir, name="local",
                             owner="local", verbose=False)
    logging.getLogger("run").info("job %s: %s", config.get("job_id"), config.get("description"))
    rc = 0
    try:
        run_tasks(config.get("tasks", []), ctx)
    except SystemExit as e:
        rc = int(e.code or 1)
    if ctx.summary.get("status") == "fail" or ctx.summary.get("failure_reason"):
        rc = rc or 1
    ctx.summary["success"] = rc == 0
    with open(os.path.join(jdir, "summary.yaml"), "w") as f:
        yaml.safe_dump({k: v for k, v in ctx.summary.items() if isinstance(v, (str, int, float, bool))}, f)
    logging.getLogger("run").info("job %s: %s", config.get("job_id"), "PASS" if rc == 0 else "FAIL")
    return rc


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = p.add_subparsers(dest="cmd", required=True)
    for name in ("matrix", "run", "lint"):
        s = sp.add_parser(name)
        s.add_argument("--suite", action="append", help="suite under qa/suites (repeatable; default smrstore)")
        s.add_argument("--subset", help="I/N: teuthology's subset I of N")
        s.add_argument("--seed", type=int, default=1)
        s.add_argument("--filter", help="keep jobs whose description contains one of these (comma-separated)")
        s.add_argument("--filter-out", help="drop jobs whose description contains one of these")
        if name == "run":
            s.add_argument("--archive", help="run directory (default /var/tmp/smrstore-teuthology/run-TIME)")
            s.add_argument("--timeout", type=int, default=1800, help="seconds per job unless it sets `timeout`")
            s.add_argument("--max-jobs", type=int, default=0)
    j = sp.add_parser("job")
    j.add_argument("archive")
    args = p.parse_args(argv)
    if args.cmd in ("matrix", "run", "lint") and not args.suite:
        args.suite = ["smrstore"]
    logging.basicConfig(level=logging.WARNING)
    return {"matrix": cmd_matrix, "run": cmd_run, "job": cmd_job, "lint": cmd_lint}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
