#!/usr/bin/env bash
# Session 33's prepared experiment (run in a later session; docs/perf-notes.md session 33 item 6):
# three forms of smem_flat against its shipped form (281101a), knobs in commits f72566d and 8cc9a03 of
# branch exp-s33 (kernels/primitives/flat_gather.cuh, kernels/classic/smem_flat.cu), binaries built by
#   git checkout exp-s33 && scripts/prebuild-variants.sh kernels/classic/smem_flat.cu base \
#     gate8=TMAKIT_EXP_GATE8 g4=TMAKIT_EXP_G4 u8=TMAKIT_EXP_U8TALL pad=TMAKIT_EXP_PAD16 &&
#   git checkout main   (base's smem_flat SASS is main's at 0745093: cuobjdump, identical)
#   gate8  the 32-byte sector phase of kTall's store pairs only where a unit has > 8 dst runs
#          (session 33's small-k cells on the H200, 0.967-0.978 of the previous kernel)
#   g4     kTall stores in groups of 4 chunks (64 bytes) per run, 8 runs per warp store (half
#          the L2 write requests; more source rows per warp in the gather)
#   u8     8 chunks in flight per thread in phase 1 for kTall (session 31 item 5, on every GPU)
#   pad    16 bytes of shared padding after every 16 source rows of kTall where the source is
#          16-byte aligned (commit 8cc9a03; the Python model of 1275228 predicts wavefronts per
#          LDS 4.0 -> 1.0 at N x 8 1 B aligned, 3.9 -> 2.0 at 1000003x8 1 B, 3.9 -> 3.5 at
#          1000003x24 1 B, 3.2 -> 4.4 at 1000003x24 2 B: a loss there)
# bulk_flat is the same in all four (only smem_flat.cu gets the knob). GPU tests of the three;
# probe and full presets' skinny and batched cells, two rounds; then ncu of base's gather:
# shared-load wavefronts per request against `tmakit banks --variant smem_flat` (NCU=0
# skips it). Run: bash scripts/session33-exp2.sh OUT
out=${1:-$OUT}; mkdir -p "$out"
VARIANTS=${VARIANTS:-"base gate8 g4 u8 pad"} TESTS=${TESTS-"gate8 g4 u8 pad"} NCU_VARIANTS=- \
  PRESETS=${PRESETS:-"probe full"} ROUNDS=${ROUNDS:-2} \
  GTEST_FILTER=${GTEST_FILTER:-'*smem_flat*:Registry/Layout.*smem_flat*:*Flat*:*Skinny*:Registry/GpuTables.*smem_flat*'} \
  FILTER=${FILTER:-'^(memcpy|smem_flat)/e(1|2|4|8)/(skinny|batched)/'} \
  TOKENS=smem_flat scripts/run-variants.sh "$out"
[ "${NCU:-1}" = 0 ] && exit 0
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
m=gpu__time_duration.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
# preset cell model (wavefronts per shared-load request, `tmakit banks --variant smem_flat
# --rows R --cols C --elem-bytes E --tile-bytes T`: kTall element loads; kWide element and
# offset-table loads together; partial chunks not modelled)
for c in "probe e1/skinny/1000003x24 3.92" "probe e1/skinny/1000003x8 3.91" "probe e1/skinny/1000003x12 1.97" \
         "probe e2/skinny/1000003x3 4.97" "probe e4/skinny/1000003x3 4.85" "full e1/skinny/4000000x16 2.00" \
         "probe e1/skinny/8x1000003 1.60" "probe e1/skinny/12x1000003 3.20" "probe e1/skinny/24x1000003 2.52"; do
  set -- $c
  echo "== ncu base smem_flat $2 (model $3)" | tee -a "$out/ncu.txt"
  timeout 60 ncu --clock-control none --metrics $m -c 1 -k regex:smem_flat_kernel /tmp/pb/base-bench \
    --preset=$1 --benchmark_filter="^smem_flat/$2/" 2>&1 | grep -E "gpu__|smsp__" | tr -s ' ' | tee -a "$out/ncu.txt"
done
