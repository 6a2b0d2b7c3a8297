#!/usr/bin/env python3
"""ctest (host): every bad argument of every tmakit subcommand is refused with exit code 2 and a
first stderr line that names the argument and what is wrong, before any GPU is touched (this
runs where there is none, so a late check would print a device error instead).

usage: check_cli_errors.py path/to/tmakit

Every subcommand that `tmakit --help` lists must have cases here, so a new one cannot slip past.
"""
import re
import subprocess
import sys

tmakit = sys.argv[1]

# (subcommand, arguments, words the first stderr line must contain)
CASES = [
    ("table", ["--rows", "99999999999999999999", "--cols", "5"], ["--rows", "99999999999999999999", "not an integer"]),
    ("table", ["--rows", "0"], ["--rows", "'0'"]),
    ("table", ["--cols", "-3"], ["--cols", "'-3'"]),
    ("table", ["--cols", "12abc"], ["--cols", "'12abc'"]),
    ("table", ["--rows"], ["--rows", "needs an integer"]),
    ("table", ["--elem-bytes", "3"], ["--elem-bytes", "3 is not 1, 2, 4, 8 or 16"]),
    ("table", ["--iters", "0"], ["--iters", "'0'"]),
    ("table", ["--variant", "nope"], ["--variant", "'nope' is not a technique"]),
    ("table", ["--variant", "smem,,copy"], ["--variant", "'' is not a technique"]),
    ("table", ["--variant"], ["--variant", "needs"]),
    ("table", ["--swizzle", "48"], ["--swizzle", "48 is not 0, 32, 64 or 128"]),
    ("table", ["--barrier", "fence"], ["--barrier", "'fence'"]),
    ("table", ["--frob"], ["unknown argument", "'--frob'"]),
    ("list", ["extra"], ["list", "takes no arguments", "'extra'"]),
    ("banks", ["--variant", "nope"], ["banks", "--variant", "'nope' is not a technique"]),
    ("banks", ["--variant", "auto"], ["banks", "--variant", "'auto' is not a technique"]),
    ("banks", ["--variant"], ["banks", "--variant", "needs"]),
    ("banks", ["--elem-bytes", "3"], ["banks", "--elem-bytes", "3 is not"]),
    ("banks", ["--elem-bytes", "x"], ["banks", "--elem-bytes", "'x'"]),
    ("banks", ["--swizzle", "7"], ["banks", "--swizzle", "7 is not"]),
    ("banks", ["--variant", "copy", "--elem-bytes", "16"], ["banks", "copy", "16-byte"]),
    ("banks", ["--svg", "out.svg"], ["banks", "--svg", "--variant"]),
    ("banks", ["--svg"], ["banks", "--svg", "needs"]),
    ("banks", ["--frob"], ["banks", "unknown argument", "'--frob'"]),
    ("banks", ["--rows", "9", "--cols", "9"], ["banks", "--rows", "--variant smem_flat"]),
    ("banks", ["--variant", "smem_flat", "--rows", "9"], ["banks", "--cols", "needs both"]),
    ("banks", ["--variant", "smem_flat", "--rows", "200", "--cols", "200"], ["banks", "no flat form"]),
    ("banks", ["--tile-bytes", "100"], ["banks", "--tile-bytes"]),
    ("tensormap", ["--cc", "abc"], ["tensormap", "--cc", "'abc'"]),
    ("tensormap", ["--fuzz", "-1"], ["tensormap", "--fuzz", "'-1'"]),
    ("tensormap", ["--seed", "1e9"], ["tensormap", "--seed", "'1e9'"]),
    ("tensormap", ["--address-offset", "99999999999999999999"], ["tensormap", "--address-offset"]),
    ("tensormap", ["--shape", "10x-1", "--box", "1x1"], ["tensormap", "--shape", "'10x-1'"]),
    ("tensormap", ["--shape", "99999999999999999999999x2", "--box", "1x1"], ["tensormap", "--shape"]),
    ("tensormap", ["--elem", "u9", "--shape", "8x8", "--box", "8x8"], ["tensormap", "--elem", "'u9'"]),
    ("tensormap", ["--swizzle", "17B"], ["tensormap", "--swizzle", "'17B'"]),
    ("tensormap", ["--elem"], ["tensormap", "--elem", "needs a value"]),
    ("tensormap", ["--shape", "8x8"], ["tensormap", "--box", "required"]),
    ("tensormap", ["--mode", "wide"], ["tensormap", "--mode", "'wide'"]),
    ("tensormap", ["--mode", "im2col", "--lower", "1,x"], ["tensormap", "--lower", "'1,x'"]),
    ("tensormap", ["--mode", "im2col", "--channels", "-3"], ["tensormap", "--channels", "'-3'"]),
    ("tensormap", ["--mode", "im2col", "--shape", "3x8"], ["tensormap", "im2col", "--lower"]),
    ("tensormap", ["--mode", "im2col", "--shape", "3x8", "--lower", "0", "--upper", "0", "--channels", "8", "--pixels", "8"],
     ["tensormap", "rank 3 to 5"]),
    ("tensormap", ["--mode", "im2col", "--shape", "3x8x8", "--box", "8x8"], ["tensormap", "--box is for tiled maps"]),
    ("tensormap", ["--frob", "1"], ["tensormap", "unknown argument", "'--frob'"]),
    ("tune", [], ["tune", "--shapes LIST"]),
    ("tune", ["--shapes", "10x"], ["tune", "--shapes", "not a positive integer"]),
    ("tune", ["--preset", "huge"], ["tune", "--preset", "'huge'"]),
    ("tune", ["--survey", "ten"], ["tune", "--survey", "'ten'"]),
    ("tune", ["--survey", "10:x"], ["tune", "--survey", "'10:x'"]),
    ("tune", ["--survey", "10", "--elem-bytes", "4"], ["tune", "--elem-bytes", "survey"]),
    ("tune", ["--shapes", "64x64", "--elem-bytes", "3"], ["tune", "--elem-bytes", "'3'"]),
    ("tune", ["--shapes", "64x64", "--rounds", "0"], ["tune", "--rounds", "'0'"]),
    ("tune", ["--shapes", "64x64", "--preset", "quick"], ["tune", "--preset", "one of"]),
    ("tune", ["--shapes", "64x64", "--wisdom"], ["tune", "--wisdom", "needs"]),
    ("tune", ["--frob"], ["tune", "unknown argument", "'--frob'"]),
    ("explain", [], ["explain", "--rows and --cols are required"]),
    ("explain", ["--rows", "0", "--cols", "5"], ["explain", "--rows", "'0'"]),
    ("explain", ["--rows", "5", "--cols", "5", "--elem-bytes", "3"], ["explain", "--elem-bytes", "3 is not"]),
    ("explain", ["--rows", "5", "--cols", "5", "--variant", "nope"], ["explain", "--variant", "'nope'"]),
    ("explain", ["--rows", "5", "--cols", "5", "--accumulate", "f8"], ["explain", "--accumulate", "'f8'"]),
    ("explain", ["--rows", "5", "--cols", "5", "--beta", "2"], ["explain", "--beta", "--accumulate"]),
    ("explain", ["--rows", "5", "--cols", "5", "--accumulate", "f32", "--beta", "x"], ["explain", "--beta", "'x'"]),
    ("explain", ["--rows", "5", "--cols", "5", "--wisdom", "/no/such/file"], ["explain", "--wisdom", "cannot open"]),
    ("explain", ["--frob"], ["explain", "unknown argument", "'--frob'"]),
    ("rank", [], ["rank", "--rows and --cols are required"]),
    ("rank", ["--rows", "5", "--cols", "5", "--elem-bytes", "3"], ["rank", "--elem-bytes", "3 is not"]),
    ("rank", ["--rows", "5", "--cols", "5", "--accumulate", "f8"], ["rank", "--accumulate", "'f8'"]),
    ("rank", ["--cells", "/no/such/file"], ["rank", "--cells", "cannot open"]),
    ("rank", ["--gpu"], ["rank", "--gpu needs"]),
    ("rank", ["--frob"], ["rank", "unknown argument", "'--frob'"]),
    ("permute", [], ["permute", "--shape is required"]),
    ("permute", ["--shape", "4,4"], ["permute", "--perm is required"]),
    ("permute", ["--shape", "4,x", "--perm", "1,0"], ["permute", "--shape", "'4,x'"]),
    ("permute", ["--shape", "4,0", "--perm", "1,0"], ["permute", "--shape", "'4,0'"]),
    ("permute", ["--shape", "4,4", "--perm", "1,1"], ["permute", "not a permutation", "1 appears twice"]),
    ("permute", ["--shape", "4,4", "--perm", "0,1,2"], ["permute", "3 entries for rank 2"]),
    ("permute", ["--shape", "4,4", "--perm", "1,0", "--elem-bytes", "3"], ["permute", "element size 3"]),
    ("permute", ["--shape", "4,4", "--perm", "1,0", "--variant", "smem"], ["permute", "--variant", "'smem'"]),
    ("permute", ["--shape", "4,4", "--perm", "1,0", "--iters", "0"], ["permute", "--iters", "'0'"]),
    ("permute", ["--shape", "17,17,17,17,17,17,17,17", "--perm", "7,6,5,4,3,2,1,0"], ["permute", "launches"]),
    ("permute", ["--frob"], ["permute", "unknown argument", "'--frob'"]),
    ("wisdom", [], ["wisdom", "FILE"]),
    ("wisdom", ["a", "b"], ["wisdom", "FILE"]),
]

failures = []
for sub, args, words in CASES:
    argv = [tmakit] + ([] if sub == "table" else [sub]) + args
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    first = (r.stderr.strip().splitlines() or [""])[0]
    where = "tmakit %s" % " ".join(argv[1:])
    if r.returncode != 2:
        failures.append("%s: exit code %d, expected 2 (stderr: %r)" % (where, r.returncode, first))
    missing = [w for w in words if w not in first]
    if missing:
        failures.append("%s: first stderr line %r lacks %s" % (where, first, missing))
    if re.search(r"cudaError|CUDA_ERROR|no usable CUDA device|no CUDA device", r.stderr + r.stdout):
        failures.append("%s: reached the GPU before refusing the argument: %r" % (where, r.stderr))

# Every subcommand the help lists has cases (the table is the command without one).
help_text = subprocess.run([tmakit, "--help"], capture_output=True, text=True).stdout
subs = set(re.findall(r"^\s*(?:usage:)?\s*tmakit ([a-z]+)\b", help_text, re.M)) - {"options"}
covered = {c[0] for c in CASES}
for s in sorted(subs):
    if s not in covered:
        failures.append("subcommand '%s' (from tmakit --help) has no bad-argument case here" % s)
if "table" not in covered:
    failures.append("the table (tmakit [options]) has no bad-argument case here")

for f in failures:
    print("FAIL:", f)
print("%d passed, %d failed" % (len(CASES) + len(subs) - len(failures), len(failures)))
sys.exit(1 if failures else 0)
