#!/usr/bin/env python3
"""ctest (host): `tmakit wisdom FILE` and the TMAKIT_WISDOM variable without a GPU. A valid
file is read and printed back unchanged (its decisions for other GPUs kept); a corrupt or
truncated one is refused (exit 1) with the file and line named; TMAKIT_WISDOM naming a corrupt
file prints one warning and is ignored: never a crash.

usage: check_cli_wisdom.py path/to/tmakit
"""
import os
import subprocess
import sys
import tempfile

tmakit = sys.argv[1]
failures = []

GOOD = ("tmakit-wisdom 1\n"
        "gpu=NVIDIA H100 80GB HBM3\tsms=132\tmem_khz=2619000\tdriver=13000\t"
        "problem=transpose e2 auto 4096x4096 b1 ld4096,4096 bs16777216,16777216 a16 tma cc90\t"
        "variant=smem_wide\tus=41.250\tcandidates=14\n"
        "gpu=NVIDIA H200\tsms=132\tmem_khz=3201000\tdriver=13000\t"
        "problem=transpose e1 auto 1024x96 b256 ld96,1024 bs98304,98304 a16 tma cc90\t"
        "variant=tma_pipeline\tus=20.000\tcandidates=16\n"
        "end 2\n")


def run(args, env=None):
    e = dict(os.environ)
    e.pop("TMAKIT_WISDOM", None)
    e.update(env or {})
    return subprocess.run([tmakit] + args, capture_output=True, text=True, timeout=60, env=e)


with tempfile.TemporaryDirectory() as d:
    good = os.path.join(d, "good.wisdom")
    with open(good, "w") as f:
        f.write(GOOD)
    r = run(["wisdom", good])
    body = r.stdout.split("\n", 1)[1] if "\n" in r.stdout else ""
    if r.returncode != 0 or "2 decisions" not in r.stdout:
        failures.append(f"wisdom good: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
    for line in GOOD.splitlines():
        if line.startswith("gpu=") and line not in body:
            failures.append(f"wisdom good: the record {line[:50]!r}... was not printed back")

    cases = {
        "truncated": (GOOD[: GOOD.index("end 2")], "cut short"),
        "cut mid-record": (GOOD[:120], "cut short"),
        "corrupt field": (GOOD.replace("us=41.250", "us=abc"), "is not a time"),
        "newer version": (GOOD.replace("tmakit-wisdom 1", "tmakit-wisdom 7"), "format version 7"),
        "empty": ("", "empty"),
    }
    for name, (text, words) in cases.items():
        path = os.path.join(d, name.replace(" ", "_") + ".wisdom")
        with open(path, "w") as f:
            f.write(text)
        r = run(["wisdom", path])
        first = (r.stderr.strip().splitlines() or [""])[0]
        if r.returncode != 1 or words not in first or path not in first or r.returncode < 0:
            failures.append(f"wisdom {name}: exit {r.returncode}, first stderr line {first!r} "
                            f"(want exit 1, the path and {words!r})")
        # The same file through TMAKIT_WISDOM: one warning, then the command goes on.
        r = run(["wisdom", good], env={"TMAKIT_WISDOM": path})
        warnings = [l for l in r.stderr.splitlines() if "TMAKIT_WISDOM" in l]
        if r.returncode != 0 or len(warnings) != 1 or "ignored" not in warnings[0]:
            failures.append(f"TMAKIT_WISDOM={name}: exit {r.returncode}, stderr {r.stderr!r} "
                            "(want one warning saying it is ignored, exit 0)")

for f in failures:
    print("FAIL:", f)
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
