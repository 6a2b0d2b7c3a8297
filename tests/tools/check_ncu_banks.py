#!/usr/bin/env python3
"""ctest (sm90): measured shared-memory wavefronts per request against the host bank model.

For each technique and axis the bank model covers (smem, smem_padded, smem_xor, vec_swizzled,
tma_load_store in every swizzle mode, int4_8x8 in both forms; 4- and 1-byte elements), one
kernel launch of `tmakit` at 1024x1024 runs under Nsight Compute (--clock-control none) and the
table compares, for shared loads and shared stores separately:

  model   the host model's wavefronts per request (`tmakit banks --csv`, host/tools/bank_model.cpp)
  sass    ncu's SASS-patched counters (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_*
          over smsp__sass_inst_executed_op_shared_*): computed per executed instruction from its
          addresses, so they see the access pattern alone
  hw      the L1TEX hardware counters (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_* over
          smsp__inst_executed_op_shared_*): what the pipe actually spent, which also counts the
          extra wavefronts of a shared access that collided with other traffic in the same data
          banks (global loads filling L1, TMA writing the tile), so it may sit above the model

The test passes when every `sass` figure is within 5% of the model and the request counts are
the model's per-tile count times the number of tiles. `hw` is printed, not checked: it is shown
next to the model in docs/swizzle.md with the reason it differs.

Usage: check_ncu_banks.py TMAKIT_BINARY CUDA_BIN_DIR [TABLE.md]
Exit 77 (skip) without a GPU or without ncu, unless TMAKIT_REQUIRE_GPU=1 (no GPU: fail) or
TMAKIT_REQUIRE_NCU=1 (no ncu: fail).
"""
import csv
import glob
import io
import os
import shutil
import subprocess
import sys

ROWS = COLS = 1024
TOLERANCE = 0.05
CASES = (
    [(v, e, None) for v in ("smem", "smem_padded", "smem_xor", "smem_wide", "vec_swizzled")
     for e in (4, 1)]
    + [("tma_load_store", e, sw) for sw in (0, 32, 64, 128) for e in (4, 1)]
    + [("int4_8x8", 16, sw) for sw in (0, 128)]
)
SASS = {
    "ld_req": "smsp__sass_inst_executed_op_shared_ld.sum",
    "st_req": "smsp__sass_inst_executed_op_shared_st.sum",
    "ld_wf": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "st_wf": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
HW = {
    "ld_req": "smsp__inst_executed_op_shared_ld.sum",
    "st_req": "smsp__inst_executed_op_shared_st.sum",
    "ld_wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "st_wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}


def skip(why, require_var):
    print("skipped: " + why)
    if os.environ.get(require_var, "0") == "1":
        print("FAIL: %s=1" % require_var)
        sys.exit(1)
    sys.exit(77)


def find_ncu(cuda_bin):
    for cand in [shutil.which("ncu"), os.path.join(cuda_bin, "ncu")] + sorted(
        glob.glob("/opt/nvidia/nsight-compute/*/ncu")
    ):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def tile_side(variant, e):
    if variant == "smem_wide":
        return 64
    if variant in ("smem", "smem_padded", "smem_xor"):
        return 32
    if variant.startswith("vec_"):
        return 64 if e <= 2 else 32
    if variant == "int4_8x8":
        return 8
    return 128 // e  # TMA tile: 128/E lines of 128 bytes


def model(tmakit, variant, e, sw):
    out = subprocess.run(
        [tmakit, "banks", "--csv", "--variant", variant, "--elem-bytes", str(e), "--swizzle",
         str(sw or 0)],
        check=True, capture_output=True, text=True).stdout
    per = {"ld": [0, 0], "st": [0, 0]}  # requests, wavefronts per tile
    for row in csv.DictReader(io.StringIO(out)):
        per[row["kind"]][0] += int(row["requests"])
        per[row["kind"]][1] += int(row["wavefronts"])
    return per


def measure(ncu, tmakit, variant, e, sw):
    args = [ncu, "--clock-control", "none", "--csv", "--metrics",
            ",".join(list(SASS.values()) + list(HW.values())),
            "-k", "regex:tile_kernel|tma_load_store_kernel|int4_8x8", "-c", "1",
            tmakit, "--variant", variant, "--elem-bytes", str(e), "--rows", str(ROWS),
            "--cols", str(COLS), "--iters", "1"]
    if sw is not None:
        args += ["--swizzle", str(sw)]
    p = subprocess.run(args, capture_output=True, text=True)
    rows = [r for r in csv.reader(io.StringIO(p.stdout)) if len(r) > 10]
    if p.returncode != 0 or len(rows) < 2:
        raise RuntimeError("ncu failed (rc %d): %s" % (p.returncode, (p.stdout + p.stderr)[-1500:]))
    h = rows[0]
    name, value = h.index("Metric Name"), h.index("Metric Value")
    m = {r[name]: float(r[value].replace(",", "")) for r in rows[1:]}
    missing = [k for k in list(SASS.values()) + list(HW.values()) if k not in m]
    if missing:
        raise RuntimeError("ncu did not report " + ", ".join(missing))
    return m


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tmakit, cuda_bin = sys.argv[1], sys.argv[2]
    table_path = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("TMAKIT_NCU_TABLE")
    smi = shutil.which("nvidia-smi")
    gpus = subprocess.run([smi, "-L"], capture_output=True, text=True).stdout if smi else ""
    if "GPU" not in gpus:
        skip("no GPU (nvidia-smi -L lists none)", "TMAKIT_REQUIRE_GPU")
    ncu = find_ncu(cuda_bin)
    if ncu is None:
        skip("ncu is not on the PATH, in %s or under /opt/nvidia/nsight-compute" % cuda_bin,
             "TMAKIT_REQUIRE_NCU")

    lines = [
        "| variant | E | swizzle | access | requests | model wf/req | ncu sass wf/req | "
        "sass vs model | ncu hw wf/req | hw vs model |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    failures = []
    for variant, e, sw in CASES:
        pred = model(tmakit, variant, e, sw)
        try:
            m = measure(ncu, tmakit, variant, e, sw)
        except RuntimeError as err:
            failures.append("%s E%d sw%s: %s" % (variant, e, sw, err))
            continue
        tiles = (ROWS // tile_side(variant, e)) * (COLS // tile_side(variant, e))
        for kind, label in (("ld", "load"), ("st", "store")):
            req_model, wf_model = pred[kind]
            if req_model == 0:
                continue
            want = wf_model / req_model
            sreq, swf = m[SASS[kind + "_req"]], m[SASS[kind + "_wf"]]
            hreq, hwf = m[HW[kind + "_req"]], m[HW[kind + "_wf"]]
            sass = swf / sreq if sreq else float("nan")
            hw = hwf / hreq if hreq else float("nan")
            where = "%s E%d sw%s %s" % (variant, e, "-" if sw is None else sw, label)
            if sreq != req_model * tiles:
                failures.append("%s: %d requests measured, model %d x %d tiles" %
                                (where, sreq, req_model, tiles))
            if not abs(sass - want) <= TOLERANCE * want:
                failures.append("%s: sass %.3f wavefronts/request, model %.3f" % (where, sass, want))
            lines.append("| %s | %d | %s | %s | %d | %.2f | %.2f | %+.1f%% | %.2f | %+.1f%% |" % (
                variant, e, "-" if sw is None else sw, label, sreq, want, sass,
                100 * (sass / want - 1), hw, 100 * (hw / want - 1)))
    print("\n".join(lines))
    if table_path:
        with open(table_path, "w") as f:
            f.write("\n".join(lines) + "\n")
    for f in failures:
        print("FAIL: " + f)
    print("%d cases, %d failures" % (len(CASES), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
