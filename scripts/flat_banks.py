#!/usr/bin/env python3
# Session 33's models of the shared-load wavefronts of smem_flat's kTall gather (N x C, phase 2 in
# kernels/primitives/flat_gather.cuh, whole chunks only): per warp LDS of 1-4 bytes, 32 banks of
# 4 bytes, the most distinct words one bank delivers. It re-states flat.hpp's index math (units
# of h = tile / (C*E) rounded down to 16 rows, item -> (run d, chunk k) in pairs, dst run d at
# byte (d*N + u*h)*E of a 256-byte-aligned dst, element o of run d at shared byte (o*C + d)*E)
# in Python: a prediction to check against ncu's smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_
# shared_op_ld / smsp__sass_inst_executed_op_shared_ld (scripts/session33-exp2.sh), not a test.
# 8 B loads are served per half-warp on sm_90: their figures here are not the hardware's.
# "old": pairs counted from the run's first chunk (before e469ac7); "new": pairs on 32-byte
# sectors; "padded": 16 bytes after every 16 source rows (knob TMAKIT_EXP_PAD16, branch exp-s33).
# Run: python3 scripts/flat_banks.py [--wide]   (--wide: the kWide model below instead)
import sys


def sim(C, E, N, tile=16384, units=40, phase=True, G=2, pad=0):
    V = 16 // E
    h = max(16, tile // (C * E) // 16 * 16)
    tot_wf = tot_ld = 0
    for u in range(1, units + 1):
        b0 = (u * h * C * E) % 16   # src run start mod 16 (src dense)
        runs = C
        lenb = h * E
        nv = (lenb + 30) // 16
        ngrp = (nv + 2 * G - 2) // G if phase else (nv + G - 1) // G
        items = runs * ngrp * G
        lanes = []
        for item in range(items):
            grp, rest = divmod(item, runs * G)
            d, r = divmod(rest, G)
            kk = grp * G + r
            a = (d * N + u * h) * E          # dst run address (dst base 0, 256-aligned)
            k = kk - ((a >> 4) & (G - 1)) if phase else kk
            c = (a & ~15) + 16 * k
            if k < 0 or c < a or c + 16 > a + lenb:  # only whole chunks
                lanes.append(None); continue
            o0 = (c - a) // E
            lanes.append((d, o0))
        for w in range(0, len(lanes), 32):
            warp = [x for x in lanes[w:w + 32] if x is not None]
            if not warp: continue
            for j in range(V):
                banks = {}
                for d, o0 in warp:
                    addr = b0 + ((o0 + j) * C + d) * E + pad * ((o0 + j) >> 4)
                    banks.setdefault((addr // 4) % 32, set()).add(addr // 4)
                tot_wf += max(len(s) for s in banks.values()); tot_ld += 1
    return tot_wf / tot_ld

# kWide (k x N: R source rows of w columns, the dst one dense run; element o = c*R + r at shared
# byte r*S + c*E with S = flat_stride_aligned(w*E) + (N*E) % 16, flat.hpp), element loads only:
# the offset table's LDS.128 (one per 4 elements) are not modelled.
def stride_aligned(b):
    s = (b + 15) // 16 * 16
    if (s // 16) % 2 == 0: s += 16
    return s
def sim_wide(R, E, N, tile=16384, warps=64):
    V = 16 // E
    w = max(16, tile // (R * E) // 16 * 16)
    S = stride_aligned(w * E) + (N * E) % 16
    tot = n = 0
    for wp in range(min(warps, w * R * E // 16 // 32)):
        for j in range(V):
            banks = {}
            for l in range(32):
                c, r = divmod((wp * 32 + l) * V + j, R)
                addr = r * S + c * E
                banks.setdefault((addr // 4) % 32, set()).add(addr // 4)
            tot += max(len(s) for s in banks.values()); n += 1
    return tot / n

if "--wide" in sys.argv:
    for E in (1, 2, 4):
        for N in (1000003, 4000000):
            print(f"k x {N} {E} B:", " ".join(
                f"{R}:{sim_wide(R, E, N, 32768 if R >= 16 else 16384):.1f}"
                for R in (2, 3, 4, 5, 7, 8, 9, 12, 16, 20, 24, 32)))
    sys.exit(0)

for C in (3, 5, 8, 12, 16, 24, 32):
    for E in (1, 2, 4, 8):
        tile = 32768 if C >= 16 else 16384
        o = sim(C, E, 1000003, tile, phase=False); n = sim(C, E, 1000003, tile, phase=True)
        print(f"N x {C:2d} {E} B: wavefronts per LDS old {o:.2f} new {n:.2f}")
print("aligned and other N:")
for N in (1000000, 1000008, 1000003, 4000000):
    for C, E in ((24, 1), (24, 2), (8, 1), (12, 1), (16, 1), (32, 1)):
        tile = 32768 if C >= 16 else 16384
        print(f"N={N} x {C} {E} B: new {sim(C, E, N, tile, phase=True):.2f}"
              f" padded {sim(C, E, N, tile, phase=True, pad=16):.2f}")
