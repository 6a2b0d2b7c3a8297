// The only kernels/ header that host code includes: one launcher per technique, all with the
// same signature so the registry (host/transpose/registry.cpp) can hold them in one table.
// Launchers assume validated arguments (host/transpose/transpose.cpp checks them) and return the
// launch error, if any; they never synchronise.
#pragma once
#include <cstdint>
#include <cuda.h>  // CUtensorMap (a plain struct; nothing is linked)
#include <cuda_runtime_api.h>
#include <kernels/common/device_policy.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/grid.hpp>
#include <kernels/common/permute_box.hpp>
#include <kernels/common/permute_geometry.hpp>
#include <kernels/common/permute_rows.hpp>
#include <kernels/common/tma_tile.hpp>

namespace tmakit::kernels {

struct LaunchArgs {
  const void* src = nullptr;  // a batch of rows x cols matrices, row-major (see BatchStrides)
  void* dst = nullptr;        // a batch of cols x rows matrices (a copy: rows x cols)
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int elem_bytes = 0;    // 1, 2, 4, 8, 16 (16: the techniques whose registry row takes it)
  BatchStrides strides;  // the host fills every field
  cudaStream_t stream = nullptr;
  int sm_count = 1;     // for grids sized from the machine (copy, persistent kernels)
  DevicePolicy policy;  // the per-GPU choices (kernels/common/device_policy.hpp)
  int cc = 0;           // the device's compute capability, major * 10 + minor (0: unknown)
  // TMA techniques only:
  int swizzle = kSwizzle128B;  // CUtensorMapSwizzle of the tile boxes (none, 32B, 64B, 128B)
  BarrierStyle barrier = BarrierStyle::kPtx;
  const CUtensorMap* src_map = nullptr;  // encoded by the host from the technique's TmaPlan
  const CUtensorMap* dst_map = nullptr;
  // Accumulate techniques only (dst = alpha * src^T + beta * dst, VariantKind::kAccumulate):
  NumType num_type = NumType::kNone;  // the arithmetic type of the elements
  double alpha = 1.0, beta = 0.0;     // beta == 0: dst is not read
};

using Launcher = cudaError_t (*)(const LaunchArgs&);

// Whether the classic kernels' global loads carry an L2 prefetch-size hint
// (ld.global.nc.L2::128B / 256B, kernels/primitives/ld_l2.cuh): on Hopper (sm_90), the GPUs
// it was measured on, each kernel with the hint forced on and off in one process, two runs each
// (docs/perf-guide.md section 6); each launcher says where it pays. Elsewhere (cc unknown, sm_80,
// newer GPUs): plain loads.
inline bool l2_hint_pays(const LaunchArgs& a) {
  return a.cc >= 90 && a.cc < 100;
}

// What a TMA technique needs from the host for one call: which tensor maps (and their box, in
// elements of the map's type), and which side it accesses with 16-byte vectors instead. The
// host builds 3-D maps (src: batch x rows x cols of src; dst: batch x cols x rows of dst, or
// batch x rows x cols for a copy; the boxes are one matrix deep, the kernels pass the matrix
// index as the outermost coordinate), validates them against every tensor-map rule and falls
// back to a classic technique when one fails.
struct TmaMapPlan {
  bool used = false;
  int box_rows = 0, box_cols = 0;
  int type_bytes = 0;  // element size of the map's data type (int4_8x8: 4-byte words)
  int data_type = -1;  // a CUtensorMapDataType (a reduce store adds in it), or -1: the
                       // unsigned integer type of type_bytes (a copy moves bits)
};
// What a planned technique (TMA, 1-D bulk copies, cp.async) needs of the operands; the host
// checks it and falls back, naming the rule, when the call breaks it.
struct TmaPlan {
  TmaMapPlan src, dst;
  int swizzle = kSwizzleNone;
  bool src_vec16 = false, dst_vec16 = false;    // 16-byte aligned base, pitch, batch stride
  bool src_rows16 = false, dst_rows16 = false;  // row lengths whole 16-byte chunks
  const char* shape_rule = nullptr;             // set: the technique takes no such call, and why
};
using Planner = TmaPlan (*)(const LaunchArgs&);

// The map of a tile technique's side: boxes of `lines` lines, one swizzle span wide, in the map's
// elements (tma_map_type_bytes: 8-byte words at 16-byte elements).
inline TmaMapPlan tile_map_plan(int lines, int swizzle, int elem_bytes) {
  const int type_bytes = tma_map_type_bytes(elem_bytes);
  return {true, lines, static_cast<int>(tma_tile_box_cols(swizzle, type_bytes)), type_bytes};
}

// kernels/device_code.cu: the virtual architecture (major*10 + minor) of the code this build
// runs on the current device, or the error (cudaErrorNoKernelImageForDevice: none at all).
cudaError_t device_code_ptx_version(int* ptx_version);
// CMAKE_CUDA_ARCHITECTURES of this build, for messages.
const char* built_cuda_architectures();

// kernels/classic/
cudaError_t launch_naive_read(const LaunchArgs&);
cudaError_t launch_naive_write(const LaunchArgs&);
cudaError_t launch_smem(const LaunchArgs&);
cudaError_t launch_smem_padded(const LaunchArgs&);
cudaError_t launch_smem_xor(const LaunchArgs&);
cudaError_t launch_smem_wide(const LaunchArgs&);
// smem_strip (and every technique that hands it a line): a single dense row or column is a
// copy; from this many bytes it is cudaMemcpyAsync's (kernels/classic/smem_strip.cu).
inline constexpr std::int64_t kLineMemcpyMinBytes = std::int64_t{56} << 20;
cudaError_t launch_smem_strip(const LaunchArgs&);
cudaError_t launch_smem_sector(const LaunchArgs&);
cudaError_t launch_smem_realign(const LaunchArgs&);
// reg_realign at 1 B: up to this many bytes of matrix (the batch's total) each lane loads its
// own next vector; above, the lanes shuffle (kernels/classic/reg_realign.cu).
inline constexpr std::int64_t kRealignOwnNextMaxBytes1B = std::int64_t{24} << 20;
cudaError_t launch_reg_realign(const LaunchArgs&);
cudaError_t launch_smem_flat(const LaunchArgs&);
cudaError_t launch_reg_permute(const LaunchArgs&);
cudaError_t launch_reg_tile(const LaunchArgs&);
cudaError_t launch_vec_padded(const LaunchArgs&);
cudaError_t launch_vec_swizzled(const LaunchArgs&);
cudaError_t launch_copy(const LaunchArgs&);
cudaError_t launch_smem_accumulate(const LaunchArgs&);
cudaError_t launch_flat_accumulate(const LaunchArgs&);
cudaError_t launch_sector_accumulate(const LaunchArgs&);

// kernels/async/ (cp.async: sm_80; 1-D bulk copies: sm_90), each with its planner
cudaError_t launch_async_copy(const LaunchArgs&);
cudaError_t launch_async_roofline(const LaunchArgs&);
cudaError_t launch_bulk_copy(const LaunchArgs&);
cudaError_t launch_bulk_roofline(const LaunchArgs&);
cudaError_t launch_bulk_flat(const LaunchArgs&);
TmaPlan plan_async_copy(const LaunchArgs&);
TmaPlan plan_bulk_copy(const LaunchArgs&);
TmaPlan plan_bulk_flat(const LaunchArgs&);

// kernels/tma/ (sm_90; each with its planner)
cudaError_t launch_tma_copy(const LaunchArgs&);
cudaError_t launch_tma_load_store(const LaunchArgs&);
cudaError_t launch_tma_load(const LaunchArgs&);
cudaError_t launch_tma_store(const LaunchArgs&);
cudaError_t launch_tma_pipeline(const LaunchArgs&);
cudaError_t launch_tma_wide(const LaunchArgs&);
cudaError_t launch_int4_8x8(const LaunchArgs&);
cudaError_t launch_tma_reduce(const LaunchArgs&);
cudaError_t launch_tma_accumulate(const LaunchArgs&);
TmaPlan plan_tma_copy(const LaunchArgs&);
TmaPlan plan_tma_load_store(const LaunchArgs&);
TmaPlan plan_tma_load(const LaunchArgs&);
TmaPlan plan_tma_store(const LaunchArgs&);
TmaPlan plan_tma_pipeline(const LaunchArgs&);
TmaPlan plan_tma_wide(const LaunchArgs&);
TmaPlan plan_int4_8x8(const LaunchArgs&);
TmaPlan plan_tma_reduce(const LaunchArgs&);
TmaPlan plan_tma_accumulate(const LaunchArgs&);

// ---- Permutations (host/permute/) --------------------------------------------------------------
// A reduced permutation as the kernels see it: a batch of (up to 3 dimensions of) tiles. Element
// (j, i) of the tile of batch entry (b0, b1, b2), j < rows, i < cols, moves
//   from src[b0 * src_batch[0] + b1 * src_batch[1] + b2 * src_batch[2] + j * src_row + i * src_col]
//   to   dst[b0 * dst_batch[0] + b1 * dst_batch[1] + b2 * dst_batch[2] + j * dst_row + i * dst_col]
// (strides in elements: PermuteGeometry). i is the dimension contiguous in src (src_col == 1 unless
// the caller's strides say otherwise). A transposing permutation has j contiguous in dst (dst_row
// == 1); a row permutation keeps i contiguous in dst too (dst_col == 1): whole rows of `cols`
// elements move, and j is dst's next dimension. b0 varies fastest (the smallest dst stride).
struct PermuteArgs {
  const void* src = nullptr;
  void* dst = nullptr;
  int elem_bytes = 0;               // 1, 2, 4, 8, 16
  PermuteGeometry geo;              // kernels/common/permute_geometry.hpp (rank 5 at most)
  PermuteDims dims;                 // the same reduced permutation, every dimension (rank 1-8);
                                    // rank 6-8: geo is unset and only permute_tile's box walk runs
  std::int64_t src_span_bytes = 0;  // from src to one past its last element (reads stay inside)
  cudaStream_t stream = nullptr;
  int sm_count = 1;
  int cc = 0;
  bool box_registers = false;  // DevicePolicy::permute_box_registers_min_bytes reached
  // DevicePolicy::permute_box_registers_elements_max_bytes
  int box_registers_elements_max_bytes = 0;
  // DevicePolicy::permute_box_registers_box_fits_min_bytes
  int box_registers_box_fits_min_bytes = 0;
  // DevicePolicy::box_registers_small_box_ratio(tensor_bytes)
  int box_registers_small_box_ratio = 0;
  int box_registers_words_min_bytes = 0;  // DevicePolicy::permute_box_registers_words_min_bytes
  int box_registers_src_elements_bytes =
      0;                       // DevicePolicy::permute_box_registers_src_elements_bytes
  int box_cuts_first = kBoxCutsFirstSplitSrc;  // DevicePolicy::permute_box_cuts_first
  // DevicePolicy::permute_box_target_elems
  int box_target_elems = static_cast<int>(kBoxTargetElems);
  int box_byte_stores_target_elems = 0;  // DevicePolicy::permute_box_byte_stores_target_elems
  // DevicePolicy::permute_box_min_boxes_per_sm times sm_count (0: no bound)
  std::int64_t box_min_boxes = 0;
  int box_max_smem_bytes = kBoxMaxSmemBytes;  // DevicePolicy::permute_box_max_smem_bytes
  bool box_least_waste = true;                // DevicePolicy::permute_box_least_waste
  bool box_whole_runs = true;                 // DevicePolicy::permute_box_whole_runs
  // DevicePolicy::permute_box_whole_runs_past_registers
  bool box_whole_runs_past_registers = false;
  int box_swizzle_bytes = 32;                 // DevicePolicy::permute_box_swizzle_bytes
  bool box_words = true;                      // DevicePolicy::permute_box_words
  int rows_vector_min_bytes = 4;              // DevicePolicy::permute_rows_vector_min_bytes
  int rows_vector_max_vecs = 128;             // DevicePolicy::permute_rows_vector_max_vecs
  int rows_flat_max_vector_bytes = 16;        // DevicePolicy::permute_rows_flat_max_vector_bytes
  int rows_min_bytes = 32;                    // DevicePolicy::rows_min_bytes(elem_bytes)
  int tile_min_fill_pct = 90;                 // DevicePolicy::tile_min_fill_pct(elem_bytes)
  bool box_origin_once = true;                // DevicePolicy::permute_box_origin_once
  bool box_pipeline = true;                   // DevicePolicy::permute_box_pipeline
  bool box_async = true;                      // DevicePolicy::permute_box_async
  int box_sm_smem_bytes = 0;                  // DevicePolicy::permute_box_sm_smem_bytes
  bool box_pad = true;                        // DevicePolicy::permute_box_pad
  bool box_row_tables = true;                 // DevicePolicy::permute_box_row_tables
  int box_async_barriers = 1;                 // DevicePolicy::permute_box_async_barriers
  bool box_overlap_edges = true;              // DevicePolicy::permute_box_overlap_edges
  bool box_src_runs = true;                   // DevicePolicy::permute_box_src_runs
  bool box_dst_runs = true;                   // DevicePolicy::permute_box_dst_runs
  int box_narrow_dst_runs_max_bytes = 1;      // DevicePolicy::permute_box_narrow_dst_runs_max_bytes
  bool box_dst_registers = true;              // DevicePolicy::permute_box_dst_registers
  // DevicePolicy::permute_box_dst_registers_large_max_bytes
  int box_dst_registers_large_max_bytes = 4;
  int box_dst_by_src_words_max_bytes = 2;  // DevicePolicy::permute_box_dst_by_src_words_max_bytes
  int box_dst_blocks_max_bytes = 1;        // DevicePolicy::permute_box_dst_blocks_max_bytes
  bool box_first_early = true;             // DevicePolicy::permute_box_first_copies_early
  // DevicePolicy::permute_box_words_small_block_max_bytes
  int box_words_small_block_max_bytes = 2;
  // DevicePolicy::permute_box_past_static_for_wider_words
  bool box_wider_words = true;
  // permute_tma: rank-5 maps (b2, b1, b0, rows, cols) of src and (b2, b1, b0, cols, rows) of dst
  // for a transposing permutation, (b2, b1, b0, rows, row words) of both for a row permutation.
  const CUtensorMap* src_map = nullptr;
  const CUtensorMap* dst_map = nullptr;

  // Whole rows move: i is contiguous on both sides.
  bool moves_rows() const { return geo.dst_col == 1 && geo.src_col == 1; }
};
using PermuteLauncher = cudaError_t (*)(const PermuteArgs&);

// The policy's choices for permute_tile's walks (every PermuteArgs field that names a
// DevicePolicy one), for a tensor of `tensor_bytes` on a device of `sm_count` SMs: permute()'s
// call and box_walk's transposes fill them so.
inline void set_permute_policy(const DevicePolicy& p, int elem_bytes, std::int64_t tensor_bytes,
                               int sm_count, PermuteArgs* a) {
  a->box_registers = p.box_registers(elem_bytes, tensor_bytes);
  a->box_registers_elements_max_bytes = p.permute_box_registers_elements_max_bytes;
  a->box_registers_src_elements_bytes = p.permute_box_registers_src_elements_bytes;
  a->box_registers_box_fits_min_bytes = p.permute_box_registers_box_fits_min_bytes;
  a->box_registers_small_box_ratio = p.box_registers_small_box_ratio(tensor_bytes);
  a->box_registers_words_min_bytes = p.permute_box_registers_words_min_bytes;
  a->box_cuts_first = p.permute_box_cuts_first;
  a->box_target_elems = p.permute_box_target_elems;
  a->box_byte_stores_target_elems = p.permute_box_byte_stores_target_elems;
  a->box_min_boxes = p.box_min_boxes(elem_bytes, sm_count);
  a->box_max_smem_bytes = p.permute_box_max_smem_bytes;
  a->box_whole_runs = p.permute_box_whole_runs;
  a->box_whole_runs_past_registers = p.permute_box_whole_runs_past_registers;
  a->box_wider_words = p.permute_box_past_static_for_wider_words;
  a->box_least_waste = p.permute_box_least_waste;
  a->box_swizzle_bytes = p.permute_box_swizzle_bytes;
  a->box_words = p.permute_box_words;
  a->rows_vector_min_bytes = p.permute_rows_vector_min_bytes;
  a->rows_vector_max_vecs = p.permute_rows_vector_max_vecs;
  a->rows_flat_max_vector_bytes = p.permute_rows_flat_max_vector_bytes;
  a->rows_min_bytes = p.rows_min_bytes(elem_bytes);
  a->tile_min_fill_pct = p.tile_min_fill_pct(elem_bytes);
  a->box_origin_once = p.permute_box_origin_once;
  a->box_pipeline = p.permute_box_pipeline;
  a->box_words_small_block_max_bytes = p.permute_box_words_small_block_max_bytes;
  a->box_async = p.permute_box_async;
  a->box_sm_smem_bytes = p.permute_box_sm_smem_bytes;
  a->box_pad = p.permute_box_pad;
  a->box_row_tables = p.permute_box_row_tables;
  a->box_async_barriers = p.permute_box_async_barriers;
  a->box_overlap_edges = p.permute_box_overlap_edges;
  a->box_src_runs = p.permute_box_src_runs;
  a->box_dst_runs = p.permute_box_dst_runs;
  a->box_narrow_dst_runs_max_bytes = p.permute_box_narrow_dst_runs_max_bytes;
  a->box_dst_registers = p.permute_box_dst_registers;
  a->box_dst_registers_large_max_bytes = p.permute_box_dst_registers_large_max_bytes;
  a->box_dst_by_src_words_max_bytes = p.permute_box_dst_by_src_words_max_bytes;
  a->box_dst_blocks_max_bytes = p.permute_box_dst_blocks_max_bytes;
  a->box_first_early = p.permute_box_first_copies_early;
}

// What permute_tma needs: its maps' boxes (in the map's elements) and type.
struct PermuteTmaPlan {
  bool rows = false;  // a row permutation: the maps are of 8-byte words
  int box_rows = 0, box_cols = 0;
  int type_bytes = 0;  // element size of the maps' unsigned type
  int swizzle = kSwizzleNone;
  const char* rule = nullptr;  // set: permute_tma takes no such call, and why
};

// kernels/permute/
cudaError_t launch_permute_tile(const PermuteArgs&);
// permute_tile's box walk over `dims` alone; cudaErrorNotSupported (nothing launched) where no
// box fits.
cudaError_t launch_permute_box(const PermuteArgs&, const PermuteDims& dims);
// A transpose technique (kernels/classic/box_walk.cu): the batch of matrices as a permutation
// of rank 2-5, walked by launch_permute_box.
cudaError_t launch_box_walk(const LaunchArgs&);
// The box permute_tile's box walk takes for `dims` (rank 6-8 run only through it); false: none.
// registers, cuts_first, target_elems, least_waste, max_smem_bytes, whole_runs, wider_words,
// min_boxes, byte_stores_target_elems: what PermuteArgs::box_registers, box_cuts_first,
// box_target_elems, box_least_waste, box_max_smem_bytes, box_whole_runs, box_wider_words,
// box_min_boxes and box_byte_stores_target_elems say; *in_registers: whether
// the box is the registers' walk's (the other kernel's where the asked one's does not fit).
bool permute_tile_box_plan(const PermuteDims& dims, int elem_bytes, BoxPlan* box,
                           bool registers = false, int cuts_first = kBoxCutsFirstSplitSrc,
                           int target_elems = static_cast<int>(kBoxTargetElems),
                           bool least_waste = false, bool* in_registers = nullptr,
                           int max_smem_bytes = kBoxMaxSmemBytes, bool whole_runs = false,
                           bool wider_words = false, std::int64_t min_boxes = 0,
                           int byte_stores_target_elems = 0);
// Whether permute_tile walks `a` in boxes (else its 32 x 33 tile or its rows kernels).
bool permute_tile_prefers_box(const PermuteArgs& a);
// permute_tile's rows kernels on a row permutation in bytes (`bytes`: strides and cols in bytes):
// the bytes of the segments each row is cut into where few long rows would leave SMs idle (a
// multiple of 16; the rest of a row a launch of its own), or 0 where the rows stay whole.
std::int64_t permute_row_segment_bytes(const PermuteGeometry& bytes, int sm_count);
// Whether permute_tile's rows kernels write `a` as one run of dst bytes
// (kernels/common/permute_rows.hpp; the policy's permute_rows_flat_max_vector_bytes), and with
// what plan (flat: may be null).
bool permute_rows_flat(const PermuteArgs& a, RowsFlat* flat = nullptr);
cudaError_t launch_permute_tma(const PermuteArgs&);
PermuteTmaPlan plan_permute_tma(const PermuteArgs&);

}  // namespace tmakit::kernels

// The LeetGPU entry point, exactly as that article declares it (kernels/classic/smem_padded.cu):
// 4-byte floats, 16x16 tile padded to 16x17, synchronises before returning.
extern "C" void solve(const float* input, float* output, int rows, int cols);
