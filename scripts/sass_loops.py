#!/usr/bin/env python3
"""The loops of a kernel's SASS and what they hold (static counts).

usage: scripts/sass_loops.py SASS_FILE NAME_PART [--range LO HI]

SASS_FILE: `cuobjdump -sass -arch sm_90 OBJECT_OR_BINARY` output (pip nvidia-cuda-cuobjdump and
nvidia-cuda-nvdisasm provide the tools on a machine without the CUDA toolkit's binutils; set
NVDISASM_PATH or PATH to nvdisasm's folder). NAME_PART: a piece of the mangled kernel name, e.g.
`bulk_flat_kernelIjLNS_8FlatFormE1E` (bulk_flat, 4-byte elements, kBatch).

Prints, for each backward branch of the first kernel whose name holds NAME_PART, the loop it
closes (start-end address), its static instruction count, its shared loads and global / generic
stores, and its most frequent opcodes. A static count is an upper bound on one trip: a trip's
path through the body (e.g. 129 instructions per 16-byte chunk in the flat gather before its walk was placed once per thread) is read off
the listing that --range LO HI prints (hex addresses)."""
import argparse
import collections
import re
import sys


def kernel_instructions(text, part):
    for f in re.split(r"\t\tFunction : ", text)[1:]:
        name = f.split("\n", 1)[0]
        if part not in name:
            continue
        ins = []
        for line in f.split("\n"):
            m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if m:
                ins.append((int(m.group(1), 16), m.group(2).strip()))
        return name, ins
    return None, []


def opcode(text):
    t = text.split()
    op = t[1] if t[0].startswith("@") else t[0]
    return op.split(".")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sass")
    ap.add_argument("name_part")
    ap.add_argument("--range", nargs=2, metavar=("LO", "HI"))
    a = ap.parse_args()
    name, ins = kernel_instructions(open(a.sass).read(), a.name_part)
    if not ins:
        sys.exit(f"sass_loops.py: no kernel with '{a.name_part}' in {a.sass}")
    print(f"{name}: {len(ins)} instructions")
    if a.range:
        lo, hi = (int(x, 16) for x in a.range)
        for addr, t in ins:
            if lo <= addr <= hi:
                print(f"{addr:05x} {t}")
        return
    where = {addr: i for i, (addr, _) in enumerate(ins)}
    for i, (addr, t) in enumerate(ins):
        if opcode(t) != "BRA":
            continue
        m = re.search(r"0x([0-9a-f]+)", t)
        if not m or int(m.group(1), 16) > addr or int(m.group(1), 16) not in where:
            continue
        body = ins[where[int(m.group(1), 16)]:i + 1]
        ops = collections.Counter(opcode(x) for _, x in body)
        lds = sum(1 for _, x in body if "LDS" in x)
        st = sum(1 for _, x in body if re.search(r"\b(STG|ST)\.", x))
        top = ", ".join(f"{k} {v}" for k, v in ops.most_common(8))
        print(f"  loop {int(m.group(1), 16):#x}-{addr:#x}: {len(body)} instructions, "
              f"LDS {lds}, stores {st}; {top}")


if __name__ == "__main__":
    main()
