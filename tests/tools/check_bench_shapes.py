#!/usr/bin/env python3
"""ctest (host): tmakit_bench --shapes (2026-11-27) parses each item, infers its class where none
is given, and refuses a bad item with exit code 2 and one line naming it, before any GPU is
touched (this runs where there is none: a late check would print a device error instead).

usage: check_bench_shapes.py path/to/tmakit_bench
"""
import subprocess
import sys

bench = sys.argv[1]
failures = []


def run(*args):
    return subprocess.run([bench, *args], capture_output=True, text=True, timeout=60)


# --list-shapes: the parsed shapes with their classes, exit 0.
want = ["skinny 1000003x12", "batched 5000x33x65", "odd 1001x999", "square 4096x4096",
        "odd 4096x4095", "skinny 7x9", "batched 33x65", "square 3x5x7"]
r = run("--shapes=1000003x12,5000x33x65,1001x999,4096x4096,odd:4096x4095,7x9,batched:33x65,"
        "square:3x5x7", "--list-shapes")
got = r.stdout.split("\n")[:-1]
if r.returncode != 0 or got != want:
    failures.append(f"--list-shapes: exit {r.returncode}, printed {got!r}, want {want!r} ({r.stderr.strip()})")

# Bad items: exit 2, the first stderr line names the item and what is wrong.
CASES = [
    ("--shapes=", ["--shapes", "''", "not a positive integer"]),
    ("--shapes=12x", ["'12x'", "'' is not a positive integer"]),
    ("--shapes=0x5", ["'0x5'", "'0' is not a positive integer"]),
    ("--shapes=5x-3", ["'5x-3'", "'-3'"]),
    ("--shapes=5x3x2x1", ["'5x3x2x1'", "ROWSxCOLS or BATCHxROWSxCOLS"]),
    ("--shapes=7", ["'7'", "ROWSxCOLS or BATCHxROWSxCOLS"]),
    ("--shapes=thin:7x9", ["'thin:7x9'", "class 'thin' is not square, odd, skinny or batched"]),
    ("--shapes=64x64,,32x32", ["''", "not a positive integer"]),
    ("--shapes=99999999999999x5", ["'99999999999999x5'", "not a positive integer"]),
    ("--shapes=2000000x2000000x2000000", ["more than 2^40 elements"]),
]
for arg, words in CASES:
    r = run(arg, "--list-shapes")
    first = (r.stderr.strip().split("\n") or [""])[0]
    if r.returncode != 2 or not first.startswith("tmakit_bench: --shapes:") or \
            any(w not in first for w in words):
        failures.append(f"{arg}: exit {r.returncode}, first stderr line {first!r}, want words {words}")

for f in failures:
    print("FAIL:", f)
print(f"{1 + len(CASES) - len(failures)} of {1 + len(CASES)} cases pass")
sys.exit(1 if failures else 0)
