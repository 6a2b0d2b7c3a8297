#!/usr/bin/env python3
"""ctest (host): bench/permute_report.py --against, the A/B of two permute-preset runs: per
technique the geometric mean of one run over the other, the cases that moved by 4% or more each
way, and only the cases and techniques both runs timed; --classes, the random cases of several
runs by element size and what `auto` ran (the `permute_tile` walk from `tmakit permute-cases`),
against cuTENSOR and memcpy; --ab, scripts/permute_ab.sh's arms over each other, each run's
memcpy divided out."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import permute_report  # noqa: E402


def row(case, who, gbps):
    name = f"permute/e4/random/{case}/2.1.0/{who}/iterations:10/repeats:1/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "GBps": gbps * 1e9,
            "form": 3.0, "label": f"ran {who}; tile: extents ({case.replace('x', ', ')}) perm (2, 1, 0)"}


def run_file(dirname, name, rows):
    path = os.path.join(dirname, name)
    with open(path, "w") as f:
        json.dump({"context": {}, "benchmarks": rows}, f)
    return path


class AgainstTest(unittest.TestCase):
    def test_ratios_counts_and_common_cases(self):
        with tempfile.TemporaryDirectory() as d:
            base = run_file(d, "base.json", [
                row("3x5x7", "memcpy", 1000), row("3x5x7", "permute_tile", 100),
                row("9x11x13", "memcpy", 1000), row("9x11x13", "permute_tile", 200),
                row("9x11x13", "cutensor", 300),
                row("2x2x2", "permute_tile", 50),  # only in the base run: left out
            ])
            run = run_file(d, "run.json", [
                row("3x5x7", "memcpy", 1010), row("3x5x7", "permute_tile", 110),
                row("9x11x13", "memcpy", 990), row("9x11x13", "permute_tile", 180),
            ])
            lines = permute_report.against(base, run, ["memcpy", "permute_tile", "cutensor"])
        tile = next(l for l in lines if l.startswith("- permute_tile:"))
        # sqrt(1.1 x 0.9) = 0.995; one case up 10%, one down 10%.
        self.assertIn("0.995x over 2 cases; 1 faster by 4% or more, 1 slower", tile)
        self.assertIn("0.900 random 9,11,13 (2,1,0) 4 B", tile)
        memcpy = next(l for l in lines if l.startswith("- memcpy:"))
        self.assertIn("over 2 cases; 0 faster by 4% or more, 0 slower", memcpy)
        # cuTENSOR ran in one run only: no line.
        self.assertFalse(any(l.startswith("- cutensor:") for l in lines))


    def test_per_walk_lines_from_permute_cases(self):
        with tempfile.TemporaryDirectory() as d:
            base = run_file(d, "base.json", [row("3x5x7", "permute_tile", 100),
                                             row("9x11x13", "permute_tile", 200),
                                             row("2x3x5", "permute_tile", 100)])
            run = run_file(d, "run.json", [row("3x5x7", "permute_tile", 110),
                                           row("9x11x13", "permute_tile", 180),
                                           row("2x3x5", "permute_tile", 100)])
            cases = os.path.join(d, "cases.txt")
            with open(cases, "w") as f:  # `tmakit permute-cases` lines; 2x3x5 not listed
                f.write("7 e4/random/3x5x7/2.1.0/ box-registers\n"
                        "7 e4/random/9x11x13/2.1.0/ box-cp.async-words\n")
            lines = permute_report.against(base, run, ["permute_tile"],
                                           permute_report.walks_of(cases))
        self.assertIn("  - box-registers: 1.100x over 1 case; 1 faster by 4% or more, 0 slower",
                      lines)
        self.assertIn("  - box-cp.async-words: 0.900x over 1 case; 0 faster by 4% or more, 1 "
                      "slower", lines)
        self.assertEqual(sum(l.startswith("  - ") for l in lines), 2)


class ClassesTest(unittest.TestCase):
    def test_groups_by_size_and_walk_across_runs(self):
        with tempfile.TemporaryDirectory() as d:
            a = run_file(d, "a.json", [
                row("3x5x7", "memcpy", 1000), row("3x5x7", "auto", 800),
                row("3x5x7", "cutensor", 1000),
                row("9x11x13", "memcpy", 1000), row("9x11x13", "auto", 500),
                row("9x11x13", "cutensor", 1000),
                row("2x2x2", "auto", 500),  # no cuTENSOR: left out
            ])
            b = run_file(d, "b.json", [
                row("5x5x5", "memcpy", 1000), row("5x5x5", "auto", 900),
                row("5x5x5", "cutensor", 600),
                row("7x7x7", "memcpy", 1000), row("7x7x7", "permute_tile", 900),
                row("7x7x7", "auto", 900), row("7x7x7", "cutensor", 600),
            ])
            # auto "ran" what row() labels it with: auto for these; 7x7x7's is relabelled.
            with open(b) as f:
                js = json.load(f)
            for r in js["benchmarks"]:
                if "7x7x7/2.1.0/auto" in r["name"]:
                    r["label"] = "ran permute_tile; tile: extents (7, 7, 7) perm (2, 1, 0)"
            with open(b, "w") as f:
                json.dump(js, f)
            cases = os.path.join(d, "cases.txt")
            with open(cases, "w") as f:
                f.write("1 e4/random/7x7x7/2.1.0/ box-registers\n")
            lines = permute_report.classes([a, b], permute_report.walks_of(cases))
        # 3x5x7 0.8, 9x11x13 0.5 and 5x5x5 1.5 ran "auto" (row()'s label): cbrt(0.6) = 0.843;
        # of memcpy 0.8, 0.5, 0.9: cbrt(0.36) = 0.711.
        self.assertIn("| 4 B | auto | 3 | 0.843 | 2 | 0.500 9,11,13 (2,1,0) | 71% |", lines)
        self.assertIn("| 4 B | box-registers | 1 | 1.500 | 0 | 1.500 7,7,7 (2,1,0) | 90% |", lines)
        self.assertEqual(len(lines), 4)


class AbTest(unittest.TestCase):
    def test_arms_over_passes_normalised_by_each_runs_memcpy(self):
        with tempfile.TemporaryDirectory() as d:
            # Seed 7: 3x5x7 at 4 B; seed 9: 9x11x13 at 4 B. Arm "b" is 1.2x and 0.9x of "a" on
            # the two cases once each run's memcpy is divided out; memcpy drifts between runs.
            for arm, pas, case, memcpy, tile in (
                    ("a", 1, "3x5x7", 1000, 500), ("a", 2, "3x5x7", 1100, 550),
                    ("b", 1, "3x5x7", 900, 540), ("b", 2, "3x5x7", 1000, 600),
                    ("a", 1, "9x11x13", 1000, 800), ("a", 2, "9x11x13", 1000, 820),
                    ("b", 1, "9x11x13", 1000, 720), ("b", 2, "9x11x13", 1000, 738)):
                seed = 7 if case == "3x5x7" else 9
                run_file(d, f"{arm}-seed{seed}-pass{pas}.json",
                         [row(case, "memcpy", memcpy), row(case, "permute_tile", tile)])
            run_file(d, "c-seed7-pass1.json", [row("3x5x7", "permute_tile", 1)])  # not an arm
            lines = permute_report.ab(d, "a", "b")
        # 3x5x7: 0.6 / 0.5 = 1.2 in both passes; 9x11x13: 0.72 / 0.8 and 0.738 / 0.82 = 0.9.
        self.assertIn("- 4 B: 1.039x over 2 cases (0.900-1.200); 1 faster by 4% or more, 1 slower",
                      lines)
        self.assertIn("- lowest: 0.900 9,11,13 (2,1,0) 4 B; 1.200 3,5,7 (2,1,0) 4 B", lines)
        # a's passes of 9x11x13 differ by 820 / 800 - 1 = 2.5%; 3x5x7's by none.
        self.assertIn("- passes of a: the median case's differ by 2.5%, the most by 2.5% (2 cases)",
                      lines)
        self.assertFalse(any(l.startswith("- all:") for l in lines))  # one element size

    def test_per_walk_lines_from_permute_cases(self):
        with tempfile.TemporaryDirectory() as d:
            # Three cases of one element size: b over a 1.5x, 0.5x and 1.1x; the first two are
            # one walk, the third another, a fourth name in the cases file ran in neither arm.
            for seed, (case, a, b) in enumerate(
                    (("3x5x7", 400, 600), ("9x11x13", 800, 400), ("5x5x5", 500, 550))):
                for arm, tile in (("a", a), ("b", b)):
                    run_file(d, f"{arm}-seed{seed}-pass1.json",
                             [row(case, "memcpy", 1000), row(case, "permute_tile", tile)])
            cases = os.path.join(d, "cases.txt")
            with open(cases, "w") as f:
                f.write("1 e4/random/3x5x7/2.1.0/ box-words\n"
                        "1 e4/random/9x11x13/2.1.0/ box-words\n"
                        "2 e4/random/5x5x5/2.1.0/ box-registers\n"
                        "2 e4/random/2x2x2/2.1.0/ box-elements\n")
            lines = permute_report.ab(d, "a", "b", walks=permute_report.walks_of(cases))
        # box-words: sqrt(1.5 x 0.5) = 0.866; box-registers 1.1; all three cbrt(0.825) = 0.938.
        self.assertIn("- 4 B: 0.938x over 3 cases (0.500-1.500); 2 faster by 4% or more, 1 slower",
                      lines)
        self.assertIn("- box-words: 0.866x over 2 cases (0.500-1.500); 1 faster by 4% or more, "
                      "1 slower", lines)
        self.assertIn("- box-registers: 1.100x over 1 case (1.100-1.100); 1 faster by 4% or more, "
                      "0 slower", lines)
        self.assertFalse(any(l.startswith("- box-elements") for l in lines))

    def test_walks_option_is_split_off_the_arguments(self):
        with tempfile.TemporaryDirectory() as d:
            cases = os.path.join(d, "cases.txt")
            with open(cases, "w") as f:
                f.write("1 e4/random/3x5x7/2.1.0/ box-words\n")
            rest, walks = permute_report.split_walks(["auto", "--walks", cases])
        self.assertEqual(rest, ["auto"])
        self.assertEqual(walks, {"e4/random/3x5x7/2.1.0/": "box-words"})
        self.assertEqual(permute_report.split_walks(["auto"]), (["auto"], None))
        self.assertEqual(permute_report.split_walks(["--walks"]), (None, None))  # no file

    def test_no_common_case_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            run_file(d, "a-seed1-pass1.json",
                     [row("3x5x7", "memcpy", 1), row("3x5x7", "permute_tile", 1)])
            lines = permute_report.ab(d, "a", "b")
        self.assertEqual(len(lines), 1)
        self.assertIn("no case that both a and b ran", lines[0])


class SectionTest(unittest.TestCase):
    def section(self, gbps):
        """The report's section of a one-case run with these techniques' GB/s."""
        with tempfile.TemporaryDirectory() as d:
            path = run_file(d, "run.json", [row("9x11x13", w, g) for w, g in gbps.items()])
            return permute_report.section(permute_report.load(path))

    def test_measured_row_gets_its_columns_and_ratio(self):
        plain = {"memcpy": 1000, "auto": 200, "cutensor": 400}
        with_measured = self.section(dict(plain, measured=500))
        self.assertIn("measured / cuTENSOR |", with_measured)
        self.assertIn("- measured / cuTENSOR, all cases: geometric mean 1.250", with_measured)
        self.assertIn("- auto / cuTENSOR, all cases: geometric mean 0.500", with_measured)
        self.assertNotIn("measured", self.section(plain))


if __name__ == "__main__":
    unittest.main()
