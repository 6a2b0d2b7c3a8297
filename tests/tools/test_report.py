#!/usr/bin/env python3
"""ctest (host): bench/report.py parses tmakit_bench JSON (names with classes, the older form
without, peers, skips, host overhead), merges files of one GPU, picks the best peer and the
ratio, lists the losses, marks cuTENSOR cells of a run without it as not run, and rewrites the
README's headline markers. Charts are not drawn (no matplotlib needed)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import report  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import targets  # noqa: E402


def bench(name, gbps=None, skip=None, label="", pct=None, us=None):
    """A median row (or a skipped row) as Google Benchmark writes it."""
    if skip is not None:
        return {"name": name, "run_name": name, "run_type": "iteration", "error_occurred": True,
                "error_message": skip}
    row = {"name": name + "_median", "run_name": name, "run_type": "aggregate",
           "aggregate_name": "median", "label": label}
    if gbps is not None:
        row["GBps"] = gbps * 1e9
    if pct is not None:
        row["pct_of_copy"] = pct
    if us is not None:
        row["us_per_call"] = us
    return row


def ctx(gpu, cutensor):
    return {"gpu": gpu, "driver_version": "13000", "date": "2026-11-22 10:00 UTC", "preset": "full",
            "cutensor": cutensor, "peers": "memcpy, cublas_geam, cublaslt" + (", cutensor" if cutensor != "not found" else "")}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        h100_a = {"context": ctx("NVIDIA H100 80GB HBM3", "2.8.0"), "benchmarks": [
            bench("memcpy/e4/odd/12345x6789", 3000),
            bench("copy/e4/odd/12345x6789", 2900),
            bench("smem_wide/e4/odd/12345x6789", 2000, pct=66.7),
            bench("tma_load_store/e4/odd/12345x6789", skip="variant 'tma_load_store' cannot run this call"),
            bench("auto/e4/odd/12345x6789", 1990, label="ran smem_wide"),
            bench("cublas_geam/e4/odd/12345x6789", 2100, label="fp32 (S)"),
            bench("cublaslt/e4/odd/12345x6789", 1900, label="fp32 (32F)"),
            bench("cutensor/e4/odd/12345x6789", 2400, label="fp32 (32F)"),
            bench("host_overhead/auto/e4/64x64", us=3.5, label="ran smem_wide"),
            bench("host_overhead_end/auto/e4/64x64", us=4.25, label="ran smem_wide"),
        ]}
        # The same GPU, split off by --benchmark_filter: another class and an old-style name.
        h100_b = {"context": ctx("NVIDIA H100 80GB HBM3", "2.8.0"), "benchmarks": [
            bench("memcpy/e2/batched/4096x64x64/iterations:10/repeats:3", 2800),
            bench("tma_pipeline/e2/batched/4096x64x64/iterations:10/repeats:3", 2750),
            bench("cublaslt/e2/batched/4096x64x64/iterations:10/repeats:3", 2500, label="bf16 (16BF)"),
            bench("cublas_geam/e2/batched/4096x64x64", skip="cuBLAS geam has no 2-byte type"),
            bench("smem/e1/2048x2048", 1500),
        ]}
        h200 = {"context": ctx("NVIDIA H200", "not found"), "benchmarks": [
            bench("memcpy/e4/skinny/4x4000000", 4000),
            bench("smem_wide/e4/skinny/4x4000000", 3000),
            bench("cublas_geam/e4/skinny/4x4000000", 2000),
        ]}
        self.paths = []
        for i, d in enumerate((h100_a, h100_b, h200)):
            p = os.path.join(self.dir, "b%d.json" % i)
            with open(p, "w") as f:
                json.dump(d, f)
            self.paths.append(p)

    def test_parse_name(self):
        self.assertEqual(report.parse_name("cutensor/e16/batched/1000x512x512"),
                         ("cutensor", 16, "batched", "1000x512x512"))
        self.assertEqual(report.parse_name("smem/e1/2048x2048/iterations:10/manual_time"), ("smem", 1, "square", "2048x2048"))
        self.assertIsNone(report.parse_name("host_overhead/auto/e4"))
        self.assertEqual(report.shape_dims("3000x97x75"), (3000, 97, 75))
        self.assertEqual(report.shape_dims("4x4000000"), (1, 4, 4000000))

    def test_merge_and_verdict(self):
        runs = report.load(self.paths)
        self.assertEqual(list(runs), ["NVIDIA H100 80GB HBM3", "NVIDIA H200"])
        h100 = runs["NVIDIA H100 80GB HBM3"]
        self.assertIn(("batched", "4096x64x64", 2), h100.cells)  # merged from the second file
        self.assertIn(("square", "2048x2048", 1), h100.cells)  # old-style name
        v = report.verdict(h100.cells[("odd", "12345x6789", 4)])
        self.assertEqual(v["tmakit"], ("smem_wide", 2000))  # a skipped TMA technique is not best
        self.assertEqual(v["peer"], ("cutensor", 2400))
        self.assertAlmostEqual(v["ratio"], 2000 / 2400)
        self.assertEqual(v["auto"], ("smem_wide", 1990))
        self.assertEqual(v["best_copy"], ("memcpy", 3000))
        vb = report.verdict(h100.cells[("batched", "4096x64x64", 2)])
        self.assertEqual(vb["peer"], ("cublaslt", 2500))
        self.assertAlmostEqual(vb["ratio"], 1.1)
        self.assertEqual(h100.overhead["auto"], (3.5, "ran smem_wide"))
        # The end-of-run rows are kept apart, not mistaken for the start's or for a cell.
        self.assertEqual(h100.overhead_end["auto"], (4.25, "ran smem_wide"))
        self.assertFalse(any(t.startswith("host_overhead") for c in h100.cells.values() for t in c))

    def test_losses_and_headline(self):
        runs = report.load(self.paths)
        lost = report.losses(runs["NVIDIA H100 80GB HBM3"])
        self.assertEqual([(l[0], l[1], l[2], l[5]) for l in lost], [("odd", "12345x6789", 4, "cutensor")])
        self.assertEqual(report.losses(runs["NVIDIA H200"]), [])
        head = report.headline(runs)
        self.assertIn("| H100 80GB HBM3 | odd | 4 B | 0.83 | 0.83 (12345x6789) | 1 of 1 | 67% |", head)
        self.assertIn("| H200 | skinny | 4 B | 1.50 |", head)

    def test_markdown_and_readme(self):
        md = os.path.join(self.dir, "results.md")
        readme = os.path.join(self.dir, "README.md")
        with open(readme, "w") as f:
            f.write("intro\n<!-- headline:begin -->\nold table\n<!-- headline:end -->\nrest\n")
        report.main(self.paths + ["--md", md, "--img", "", "--readme", readme, "--command", "scripts/bench.sh full"])
        text = open(md).read()
        self.assertIn("## NVIDIA H100 80GB HBM3", text)
        self.assertIn("## NVIDIA H200", text)
        self.assertIn("cuTENSOR: 2.8.0", text)
        self.assertIn("not run (cuTENSOR: not found)", text)  # the H200 run had no cuTENSOR
        self.assertIn("| 12345x6789 | 4 B | 3000 | `smem_wide` | 2000 | 66.7% | cuTENSOR | 2400 | 80.0% | **0.83** | `smem_wide` (1990) |", text)
        self.assertIn("| `auto` | smem_wide | 3.50 | 4.25 |", text)  # start and end of the run
        self.assertIn("| `tma_load_store` | n/a |", text)
        r = open(readme).read()
        self.assertNotIn("old table", r)
        self.assertTrue(r.startswith("intro\n<!-- headline:begin -->\n| GPU |"))
        self.assertTrue(r.endswith("<!-- headline:end -->\nrest\n"))

    def test_ncu_cases(self):
        """scripts/targets.py --ncu-cases: each unmet target's deciding cell, tmakit's best there
        with the kernel it launches, and the best peer where the target is a ratio to it; a
        met target names nothing."""
        runs = report.load(self.paths)
        self.assertEqual(targets.ncu_cases(runs["NVIDIA H100 80GB HBM3"]), [
            "odd 4 B 12345x6789 (66.7% of memcpy): smem_wide\t^smem_wide/e4/odd/12345x6789/\tsmem_tile_kernel",
            "odd 4 B 12345x6789 (0.833x the best peer): smem_wide\t^smem_wide/e4/odd/12345x6789/\tsmem_tile_kernel",
            "odd 4 B 12345x6789 (0.833x the best peer): peer cutensor\t^cutensor/e4/odd/12345x6789/\t"])
        # (its batched 2 B cell, 98.2% of memcpy, meets its target: no line)
        # The H200's skinny 4 B cell: 75% of memcpy (unmet), 1.5x the best peer (met).
        self.assertEqual(targets.ncu_cases(runs["NVIDIA H200"]), [
            "skinny 4 B 4x4000000 (75.0% of memcpy): smem_wide\t^smem_wide/e4/skinny/4x4000000/\tsmem_tile_kernel"])

    def h100_run(self, name, rows):
        """One H100 run of these rows, written to the test's folder and loaded by report.py."""
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            json.dump({"context": ctx("NVIDIA H100 80GB HBM3", "2.8.0"), "benchmarks": rows}, f)
        return report.load([p])["NVIDIA H100 80GB HBM3"]

    def test_ratio_at_copy_speed(self):
        """targets.py: an unmet ratio target also says what tmakit would reach at memcpy's speed
        (memcpy / the best peer) and whether even that misses; a met one says nothing more."""
        rows = [bench("memcpy/e2/skinny/32x4000000", 3000), bench("smem_flat/e2/skinny/32x4000000", 2850),
                bench("cutensor/e2/skinny/32x4000000", 2880, label="bf16 (16BF)"),
                bench("memcpy/e4/skinny/16x4000000", 3000), bench("smem_flat/e4/skinny/16x4000000", 2500),
                bench("cutensor/e4/skinny/16x4000000", 2600, label="fp32 (32F)"),
                bench("memcpy/e8/skinny/4000000x32", 3000), bench("smem_flat/e8/skinny/4000000x32", 2900),
                bench("cublaslt/e8/skinny/4000000x32", 2500, label="fp64 (64F)")]
        v = {x[0]: x[1:] for x in targets.verdicts(self.h100_run("bound.json", rows))
             if "best peer" in x[0]}
        self.assertEqual(v["skinny 2 B >= 1.05x the best peer"],
                         (False, "0.990 (32x4000000); 1.042 at memcpy speed: short even there"))
        self.assertEqual(v["skinny 4 B >= 1.05x the best peer"],
                         (False, "0.962 (16x4000000); 1.154 at memcpy speed"))
        self.assertEqual(v["skinny 8 B >= 1.05x the best peer"], (True, "1.160 (4000000x32)"))

    def test_auto_verdict(self):
        """targets.py's `auto` target: a miss is auto > 2% behind the best named technique, and
        the misses where auto ran that technique itself are counted apart."""
        rows = [bench("memcpy/e4/odd/1001x999", 3000), bench("smem_wide/e4/odd/1001x999", 2000),
                bench("auto/e4/odd/1001x999", 1900, label="ran smem_wide"),
                bench("memcpy/e2/odd/1001x999", 3000), bench("smem_xor/e2/odd/1001x999", 2000),
                bench("auto/e2/odd/1001x999", 1900, label="ran smem_sector"),
                bench("memcpy/e1/odd/1001x999", 3000), bench("smem_xor/e1/odd/1001x999", 2000),
                bench("auto/e1/odd/1001x999", 1970, label="ran smem_wide")]
        v = [x for x in targets.verdicts(self.h100_run("auto.json", rows)) if x[0].startswith("auto")]
        self.assertEqual(v, [("auto within 2% of every named technique", False,
                              "2 misses (1 where auto ran the best technique itself)")])

    def test_rounds(self):
        """A run of --order=rounds: one row per round and name, no aggregates, in shuffled order.
        The median of the rounds stands for a name, % of copy comes from the medians, and the
        rows keep the registry's order (the context's tokens)."""
        def row(name, gbps, label=""):
            return {"name": name + "/iterations:10/manual_time", "run_name": name + "/iterations:10/manual_time",
                    "run_type": "iteration", "GBps": gbps, "label": label}
        c = ctx("NVIDIA H100 80GB HBM3", "2.8.0")
        c.update({"order": "rounds", "launch_gate": "on", "tokens": "copy,smem_wide,tma_wide"})
        rows = []
        for r, (mc, sw, tw, au, cg) in enumerate([(3000, 2000, 2500, 2490, 2400),
                                                  (3100, 1000, 2600, 2590, 2300),
                                                  (2900, 2100, 2550, 2540, 2450)]):
            shuffled = [row("tma_wide/e4/square/4096x4096", tw),
                        row("auto/e4/square/4096x4096", au, "ran tma_wide"),
                        row("cublas_geam/e4/square/4096x4096", cg, "fp32 (S)"),
                        row("smem_wide/e4/square/4096x4096", sw),
                        row("memcpy/e4/square/4096x4096", mc, "4-byte")]
            rows += shuffled[r:] + shuffled[:r]
        p = os.path.join(self.dir, "rounds.json")
        with open(p, "w") as f:
            json.dump({"context": c, "benchmarks": rows}, f)
        run = report.load([p])["NVIDIA H100 80GB HBM3"]
        cell = run.cells[("square", "4096x4096", 4)]
        self.assertEqual(list(cell), ["memcpy", "smem_wide", "tma_wide", "auto", "cublas_geam"])
        self.assertEqual(cell["smem_wide"].gbps, 2000)  # the median, not the slow round
        self.assertEqual(cell["tma_wide"].gbps, 2550)
        self.assertAlmostEqual(cell["tma_wide"].pct, 100 * 2550 / 3000)
        self.assertEqual(cell["auto"].label, "ran tma_wide")
        v = report.verdict(cell)
        self.assertEqual(v["peer"], ("cublas_geam", 2400))
        self.assertAlmostEqual(v["ratio"], 2550 / 2400)
        self.assertIn("3 shuffled rounds", report.gpu_header(run))
        self.assertIn("launch gate: on", report.gpu_header(run))


if __name__ == "__main__":
    unittest.main()
