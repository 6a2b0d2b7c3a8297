#!/usr/bin/env python3
"""One-page markdown summary of an sm_90 CI run (scripts/ci-sm90.sh).

usage: ci_summary.py --gpu gpu.txt --ctest ctest.log [--ctest more.log ...] --bench bench.json
                     [--status N]
Headline ratios: for 4-byte (fp32) and 2-byte (bf16) elements at each shape of the benchmark,
the fastest transpose (not a copy, not cuBLAS), its GB/s, percent of the best copy measured in
the same run, and its ratio to cuBLAS geam.
"""
import argparse
import datetime
import json
import re

COPIES = {"memcpy", "copy", "tma_copy"}


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


def medians(bench):
    out = {}  # (elem, shape) -> {technique: (gbps, pct)}
    for b in json.load(open(bench))["benchmarks"]:
        if b.get("aggregate_name") != "median" or b.get("error_occurred"):
            continue
        tech, elem, shape = b["run_name"].split("/")[:3]
        out.setdefault((int(elem[1:]), shape), {})[tech] = (b.get("GBps", 0.0), b.get("pct_of_copy"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--ctest", action="append", default=[])
    ap.add_argument("--bench", required=True)
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
    try:
        m = medians(a.bench)
    except (OSError, ValueError, KeyError) as e:
        print("benchmark JSON unreadable: %s" % e)
        return 1
    print("## Headline ratios (benchmark preset `quick`, medians)\n")
    print("| elements | shape | best transpose | GB/s | % of best copy | vs cuBLAS geam |")
    print("|---|---|---|---|---|---|")
    for elem, label in ((4, "fp32 (4 B)"), (2, "bf16 (2 B)")):
        for (e, shape), techs in sorted(m.items()):
            if e != elem:
                continue
            cands = {t: v for t, v in techs.items() if t not in COPIES and t != "cublas_geam"}
            if not cands:
                continue
            best = max(cands, key=lambda t: cands[t][0])
            gbps, pct = cands[best]
            geam = techs.get("cublas_geam", (None,))[0]
            ratio = "%.3f" % (gbps / geam) if geam else "n/a"
            print("| %s | %s | `%s` | %.0f | %s | %s |" % (
                label, shape, best, gbps, "%.1f%%" % pct if pct is not None else "n/a", ratio))
    return 0 if a.status == 0 and failed == 0 and skipped == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
