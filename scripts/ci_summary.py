#!/usr/bin/env python3
"""One-page markdown summary of an sm_90 CI run (scripts/ci-sm90.sh).

usage: ci_summary.py --gpu gpu.txt --ctest ctest.log [--ctest more.log ...] --bench bench.json
                     [--status N]
Then, for every class, shape and element size of the benchmark: tmakit's fastest technique,
its GB/s and percent of memcpy, the best peer and the ratio to it (bench/report.py's verdict).
"""
import argparse
import datetime
import os
import re
import sys



def ctest_counts(paths):
    total = failed = skipped = 0
    for p in paths:
        text = open(p).read()
        # ctest ends with "N% tests passed, F tests failed out of T", or with
        # "100% tests passed out of T" when none failed.
        m = re.findall(r"(\d+) tests failed out of (\d+)", text)
        ok = re.findall(r"100% tests passed out of (\d+)", text)
        if m:
            failed += int(m[-1][0])
            total += int(m[-1][1])
        elif ok:
            total += int(ok[-1])
        else:
            failed += 1  # a log without a closing line: ctest did not finish
            total += 1
        skipped += len(re.findall(r"\(Skipped\)", text))
    return total, failed, skipped


def load_bench(path):
    # bench/report.py is the one parser of tmakit_bench names (classes, peers, skips).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
    import report
    return report, report.load([path])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--ctest", action="append", default=[])
    ap.add_argument("--bench", default=None, help="omitted: the quick benchmark was skipped")
    ap.add_argument("--status", type=int, default=0)
    a = ap.parse_args()
    gpu = open(a.gpu).read().strip().splitlines()[0]
    total, failed, skipped = ctest_counts(a.ctest)
    print("# tmakit sm_90 CI run\n")
    print("- GPU, compute capability, driver: %s" % gpu)
    print("- date: %s UTC" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))
    print("- result: **%s**" % ("PASS" if a.status == 0 and failed == 0 and skipped == 0 else "FAIL"))
    print("- ctest (TMAKIT_REQUIRE_GPU=1): %d tests, %d passed, %d failed, %d skipped\n"
          % (total, total - failed - skipped, failed, skipped))
    if a.bench is None:
        print("Quick benchmark: skipped (TMAKIT_CI_BENCH=0); the full benchmark is run and "
              "reported separately (docs/results.md).")
        return 0 if a.status == 0 and failed == 0 and skipped == 0 else 1
    try:
        report, runs = load_bench(a.bench)
    except (OSError, ValueError, KeyError) as e:
        print("benchmark JSON unreadable: %s" % e)
        return 1
    print("## Quick benchmark against the best peer (medians)\n")
    print("| class | shape | elements | tmakit best | GB/s | % of memcpy | best peer | GB/s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for run in runs.values():
        for (cls, shape, e), cell in run.cells.items():
            v = report.verdict(cell)
            tk, tg = v["tmakit"]
            pk, pg = v["peer"]
            if tk is None:
                continue
            print("| %s | %s | %d B | `%s` | %.0f | %s | %s | %s | %s |" % (
                cls, shape, e, tk, tg, report.pct(tg, v["memcpy"]), pk or "-",
                "%.0f" % pg if pg else "-", "%.3f" % v["ratio"] if v["ratio"] else "n/a"))
    return 0 if a.status == 0 and failed == 0 and skipped == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
