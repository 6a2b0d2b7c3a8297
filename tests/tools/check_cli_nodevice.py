#!/usr/bin/env python3
"""ctest (host): the CLI where no CUDA device is usable (CUDA_VISIBLE_DEVICES="" hides any there
is, so this checks the same on a GPU machine):
  - every verb that needs a device exits with 3 and one line that says so;
  - `tmakit explain --gpu h100|h200` answers anyway: the plan that GPU's table gives, its
    technique the first of its ranking that passes the rules;
  - `tmakit list` shows every technique, the permutation ones included, in aligned columns.

usage: check_cli_nodevice.py path/to/tmakit
"""
import os
import re
import subprocess
import sys

tmakit = sys.argv[1]
env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
failures = []


def run(args):
    return subprocess.run([tmakit] + args, capture_output=True, text=True, timeout=120, env=env)


# Every verb that needs a device: exit 3, the first stderr line names the missing device.
NEEDS_DEVICE = [
    [],  # the table
    ["--rows", "64", "--cols", "64", "--iters", "1"],
    ["tune", "--shapes", "64x64", "--elem-bytes", "4"],
    ["explain", "--rows", "64", "--cols", "64"],
    ["explain", "--rows", "64", "--cols", "64", "--accumulate", "f32", "--beta", "1"],
    ["permute", "--shape", "4,5,6", "--perm", "2,0,1"],
    ["tensormap", "--fuzz", "10"],
]
for args in NEEDS_DEVICE:
    r = run(args)
    first = (r.stderr.strip().splitlines() or [""])[0]
    where = "tmakit " + " ".join(args)
    if r.returncode != 3:
        failures.append(f"{where}: exit {r.returncode}, expected 3 (stderr {first!r})")
    if not re.search(r"CUDA device|needs a GPU", first):
        failures.append(f"{where}: first stderr line {first!r} does not say no device is usable")

# explain --gpu: no device used. The technique it runs is in its ranking, and it is the first
# of that ranking which the rules let run (a TMA technique on a row TMA cannot take is passed).
EXPLAIN = [
    ("h100", ["--rows", "64", "--cols", "3000000", "--elem-bytes", "1"]),
    ("h200", ["--rows", "197", "--cols", "64", "--batch", "512", "--elem-bytes", "2"]),
    ("h100", ["--rows", "1000000", "--cols", "33", "--elem-bytes", "4"]),
    ("h200", ["--rows", "33", "--cols", "169150", "--elem-bytes", "4", "--no-tma"]),
    ("h100", ["--rows", "4096", "--cols", "4096", "--accumulate", "bf16", "--beta", "0"]),
    ("h200", ["--rows", "1", "--cols", "1000", "--elem-bytes", "16", "--variant", "tma_wide"]),
]
for gpu, args in EXPLAIN:
    r = run(["explain", "--gpu", gpu] + args)
    where = f"tmakit explain --gpu {gpu} " + " ".join(args)
    out = r.stdout
    runs = re.search(r"^runs:\s+(\S+)", out, re.M)
    ranking = re.search(r"^ranking:\s+(.*)$", out, re.M)
    if r.returncode != 0 or not runs or not ranking or "as described" not in out:
        failures.append(f"{where}: exit {r.returncode}, stdout {out!r}, stderr {r.stderr!r}")
        continue
    order = [t.strip() for t in ranking.group(1).split(",")]
    if runs.group(1) not in order:
        failures.append(f"{where}: runs {runs.group(1)}, not in its ranking {order}")
    if "--no-tma" in args and runs.group(1).startswith("tma_"):
        failures.append(f"{where}: runs {runs.group(1)} with TMA disabled")
    gpu_name = {"h100": "H100", "h200": "H200"}[gpu]
    if gpu_name not in out:
        failures.append(f"{where}: the plan does not name the {gpu_name}: {out!r}")
    if re.search(r"cudaError|CUDA_ERROR", out + r.stderr):
        failures.append(f"{where}: reached CUDA: {r.stderr!r}")

# The same problem on the two tables may rank differently, but each names its own GPU's table.
for bad, words in ((["--gpu", "a100"], ["--gpu", "'a100'"]),
                   (["--gpu", "h100", "--measure"], ["--gpu", "--measure"])):
    r = run(["explain", "--rows", "64", "--cols", "64"] + bad)
    first = (r.stderr.strip().splitlines() or [""])[0]
    if r.returncode != 2 or any(w not in first for w in words):
        failures.append(f"explain {' '.join(bad)}: exit {r.returncode}, first line {first!r}, "
                        f"want exit 2 and {words}")

# tmakit list: every technique (permute's included) once, the columns aligned.
r = run(["list"])
lines = r.stdout.splitlines()
rows = [ln for ln in lines[1:] if ln and not ln.startswith("auto:")]
tokens = [ln.split()[0] for ln in rows]
for t in ("permute_tile", "permute_tma", "tma_wide", "copy", "tma_reduce", "int4_8x8"):
    if t not in tokens:
        failures.append(f"tmakit list: no row for {t}")
if len(set(tokens)) != len(tokens):
    failures.append(f"tmakit list: a technique listed twice: {tokens}")
header = lines[0] if lines else ""
desc_at = header.find("description")
for ln in rows:
    # The description column starts where the header's does, after two spaces of the align column.
    if desc_at < 0 or len(ln) <= desc_at or ln[desc_at - 2:desc_at] != "  " or ln[desc_at] == " ":
        failures.append(f"tmakit list: row not aligned with the header: {ln!r}")
        break
if r.returncode != 0 or not any(ln.startswith("auto:") for ln in lines):
    failures.append(f"tmakit list: exit {r.returncode}, no auto line")

for f in failures:
    print("FAIL:", f)
total = len(NEEDS_DEVICE) + len(EXPLAIN) + 3
print(f"{total - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
