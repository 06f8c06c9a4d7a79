"""The report of qa/mutate/engine.sh: per-file and overall counts, score, survivors.

Usage: engine_report.py RESULTS.tsv EQUIVALENT.tsv SAMPLE SEED BASELINE_S RUN_S

RESULTS.tsv: file, mutant, status (killed|killed-analysis|survived|no-compile|same-object),
line, original
line, mutant line, seconds (one row per mutant tried). EQUIVALENT.tsv: file, original line,
mutant line, reason (lines stripped of leading blanks, tab-separated, '#' comments): the
survivors judged equivalent in doc/testing.md; a survivor matching one is "equivalent" and
leaves the denominator. score = killed / (killed + survived), survived excluding equivalent;
killed-analysis (the tests passed, make test's thread-safety analysis failed) counts as killed.
"""
import csv
import sys


def load_equivalent(path):
    eq = {}
    try:
        with open(path, encoding="utf-8") as fh:
            for raw in fh:
                if not raw.strip() or raw.startswith("#"):
                    continue
                parts = raw.rstrip("\n").split("\t")
                if len(parts) >= 3:
                    eq[(parts[0], parts[1].strip(), parts[2].strip())] = (
                        parts[3] if len(parts) > 3 else "")
    except FileNotFoundError:
        pass
    return eq


def pct(k, s):
    return "n/a" if k + s == 0 else f"{100.0 * k / (k + s):.1f}%"


def main():
    results, eq_path, sample, seed, base_s, run_s = sys.argv[1:7]
    eq = load_equivalent(eq_path)
    with open(results, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    files = []
    for r in rows:
        if r["file"] not in files:
            files.append(r["file"])
        if r["status"] == "survived" and (r["file"], r["original"].strip(),
                                          r["mutant_line"].strip()) in eq:
            r["status"] = "equivalent"
    cols = ["tried", "killed", "survived", "equivalent", "no-compile", "same-object"]
    out = []
    out.append("C++ engine mutation testing (universalmutator 1.14.1, qa/mutate/engine.sh)")
    out.append(f"sample: {sample} mutants per file that compile to new object code, seed {seed};"
               f" baseline smrstore_tests run {base_s} s; mutant run {run_s} s")
    out.append("score = killed / (killed + survived); 'equivalent' survivors "
               "(qa/mutate/engine-equivalent.tsv, doc/testing.md) are left out")
    out.append("")
    header = f"{'file (src/os/smrstore/)':34}" + "".join(f"{c:>12}" for c in cols) + f"{'score':>9}"
    out.append(header)
    totals = dict.fromkeys(cols, 0)
    secs_tested = []
    by_analysis = 0
    for f in files:
        fr = [r for r in rows if r["file"] == f]
        c = {k: 0 for k in cols}
        c["tried"] = len(fr)
        for r in fr:
            if r["status"] == "killed-analysis":
                by_analysis += 1
                c["killed"] += 1
            else:
                c[r["status"]] = c.get(r["status"], 0) + 1
            if r["status"] in ("killed", "killed-analysis", "survived", "equivalent"):
                secs_tested.append(int(r["seconds"]))
        for k in cols:
            totals[k] += c[k]
        out.append(f"{f:34}" + "".join(f"{c[k]:>12}" for k in cols)
                   + f"{pct(c['killed'], c['survived']):>9}")
    out.append(f"{'overall':34}" + "".join(f"{totals[k]:>12}" for k in cols)
               + f"{pct(totals['killed'], totals['survived']):>9}")
    out.append(f"of the killed, by make test's thread-safety analysis (tests passed): {by_analysis}")
    if secs_tested:
        out.append(f"mean time per built-and-tested mutant: "
                   f"{sum(secs_tested) / len(secs_tested):.1f} s over {len(secs_tested)}")
    out.append("")
    surv = [r for r in rows if r["status"] == "survived"]
    out.append(f"survivors ({len(surv)}):")
    for r in surv:
        out.append(f"  {r['file']}:{r['line']} ({r['mutant']})")
        out.append(f"      - {r['original']}")
        out.append(f"      + {r['mutant_line']}")
    eqs = [r for r in rows if r["status"] == "equivalent"]
    if eqs:
        out.append("")
        out.append(f"equivalent survivors ({len(eqs)}, see doc/testing.md):")
        for r in eqs:
            why = eq[(r["file"], r["original"].strip(), r["mutant_line"].strip())]
            out.append(f"  {r['file']}:{r['line']}: {r['original']}  ->  {r['mutant_line']}")
            if why:
                out.append(f"      {why}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
