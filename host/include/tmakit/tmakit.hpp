// tmakit public API: matrix transpose on the GPU, with every technique of the classic ladder
// and (on sm_90) the TMA paths, picked by token or automatically.
//
// Errors are returned, never thrown: every call gives a Status whose message says what was
// wrong ("cols must be >= 1 (got 0)"). Bad input is rejected before anything is launched, so
// the destination is left untouched.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <cuda_runtime_api.h>

namespace tmakit {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // null pointer, zero or absurd dims, overlap, unknown variant...
  kUnsupported,      // the variant does not support this element size / device
  kNoDevice,         // no CUDA device or driver
  kCudaError,        // a CUDA call failed; the message names it
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;          // empty when ok
  std::string variant;          // the technique that ran (or would have run)
  std::string fallback_reason;  // why `variant` differs from the one asked for; empty if not

  bool ok() const { return code == StatusCode::kOk; }
  explicit operator bool() const { return ok(); }
};

const char* to_string(StatusCode code);

// kTranspose: transpose(); kCopy: transpose() copies instead (a roofline); kAccumulate:
// transpose_accumulate() (dst = alpha * src^T + beta * dst); kPermute: permute()
// (tmakit/permute.hpp; those rows are permute_variants(), not variants()).
enum class VariantKind { kTranspose, kCopy, kAccumulate, kPermute };
const char* to_string(VariantKind kind);  // "transpose", "copy", "accumulate", "permute"

// One registered technique (host/transpose/registry.cpp). The CLI, tests and benchmarks iterate
// these.
struct VariantInfo {
  std::string token;             // its one name: file, CLI --variant, benchmark, test, docs anchor
  std::string description;       // what it adds over the previous rung
  int min_cc = 75;               // minimum compute capability, major*10 + minor
  bool strided = true;           // takes MatrixLayout's leading dimensions and batch strides
                                 // (false: dense operands only, a batch of them included)
  unsigned elem_bytes_mask = 0;  // bit for each supported element size: 1, 2, 4, 8, 16 bytes
  int fast_align_bytes = 1;      // pointer alignment of its fast path (unaligned input still works)
  bool uses_tma = false;
  // It has needs a call can break (TMA, the 1-D bulk copies, cp.async: 16-byte rows, pitches,
  // alignment, the device): such a call runs its classic fallback and says why.
  bool may_fall_back = false;
  // It takes only the shapes its description names (bulk_flat: dense batches of small matrices
  // and matrices of at most 32 columns): any other call runs its fallback, the reason starting
  // with its token and naming the rule.
  bool shape_limited = false;
  // How many batch dimensions it takes: 1, or 3 (a permutation's tile form runs as a batch of
  // transposes whose batch is the up-to-three dimensions around the transposed pair, each with
  // its own strides, and the matrices may interleave: tmakit/permute.hpp).
  int batch_dims = 1;
  VariantKind kind = VariantKind::kTranspose;
  // Axes of TMA techniques (TransposeOptions picks a value; empty / false: no such axis).
  std::vector<int> swizzle_axis_bytes;  // swizzle spans it takes: 0 (none), 32, 64, 128
  bool barrier_axis = false;            // takes TmaBarrier::kPtx and kCudaBarrier

  bool supports_elem_bytes(int elem_bytes) const;
};

const std::vector<VariantInfo>& variants();
const VariantInfo* find_variant(const std::string& token);

// How TMA kernels wait for their loads: raw cuda::ptx mbarrier calls or libcu++ cuda::barrier.
enum class TmaBarrier { kDefault = 0, kPtx, kCudaBarrier };
const char* to_string(TmaBarrier barrier);  // "default", "ptx", "cuda_barrier"

struct TransposeOptions {
  std::string variant = "auto";  // a registered token, or "auto"
  cudaStream_t stream = nullptr;
  bool synchronize = false;  // wait for the kernel and report its execution errors
  // TMA techniques only (others reject non-default values):
  int swizzle_bytes = -1;  // -1: the technique's default (its widest); else 0, 32, 64 or 128
  TmaBarrier barrier = TmaBarrier::kDefault;  // default: kPtx
  // false: TMA techniques (and `auto`) run the classic fallback instead, with the reason in
  // Status::fallback_reason. The environment variable TMAKIT_DISABLE_TMA=1 does the same.
  bool allow_tma = true;
  // false: a named TMA technique that cannot run this call (pre-sm_90 device, TMA disabled,
  // a tensor-map rule the operands break) is an error (kUnsupported, the reason in the
  // message) instead of running its classic fallback. Ignored for `auto`.
  bool allow_fallback = true;
};

// Batched and strided operands, like cuBLAS's lda/ldc and strided-batched calls. Matrix b of
// the batch (b = 0 .. batch-1) of src starts src_batch_stride_elems elements after matrix
// b-1, and its row i src_ld_elems elements after row i-1; likewise dst. 0 means dense:
// src_ld = cols, dst_ld = rows (a copy variant: cols), batch strides = one matrix
// (rows * src_ld, and dst_ld times the dst row count). Leading dimensions must cover a row
// (src_ld >= cols, dst_ld >= rows) and batch strides a matrix, so no two elements alias.
struct MatrixLayout {
  std::int64_t batch = 1;
  std::int64_t src_ld_elems = 0;
  std::int64_t dst_ld_elems = 0;
  std::int64_t src_batch_stride_elems = 0;
  std::int64_t dst_batch_stride_elems = 0;
};

// dst[j][i] = src[i][j] for a rows x cols row-major matrix of elem_bytes-sized elements;
// dst is cols x rows, row-major. src and dst are device pointers and must not overlap.
// Asynchronous on options.stream unless options.synchronize.
// A copy variant (kind kCopy) copies rows*cols elements instead: the roofline.
Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const TransposeOptions& options = {});

// The same for a batch of strided matrices, in one launch: for b < layout.batch,
// dst_b[j][i] = src_b[i][j] with the pitches of `layout`. TMA techniques use 3-D tensor maps
// when the pitches and strides meet TMA's rules (16-byte multiples) and fall back, saying
// which rule failed, when they do not.
Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const MatrixLayout& layout, const TransposeOptions& options = {});

template <class T>
Status transpose(const T* src, T* dst, std::int64_t rows, std::int64_t cols,
                 const TransposeOptions& options = {}) {
  return transpose(static_cast<const void*>(src), static_cast<void*>(dst), rows, cols,
                   static_cast<int>(sizeof(T)), options);
}

// The one decider's pick for this problem (host/transpose/decider.hpp): the first technique of
// its ranking on the tuning table of the GPU whose peak DRAM bandwidth is nearest `dram_gbps`
// (0: the H100's), for `batch` dense matrices of rows x cols. A plan runs it when it can run the
// call; else the ranking's next that can (Plan::ranking(), Plan::explain() say which).
std::string auto_variant(std::int64_t rows, std::int64_t cols, int elem_bytes,
                         std::int64_t batch = 1, double dram_gbps = 0);

// Empty when TMA techniques can run on the current device with this build and these options;
// else the reason every TMA call would fall back with: no device, compute capability below 9.0,
// a build without sm_90 device code (CMAKE_CUDA_ARCHITECTURES lacking 90), TMA switched off
// (allow_tma = false, TMAKIT_DISABLE_TMA=1), no driver encoder. Per-call reasons (a pitch that
// is not a multiple of 16 bytes, a misaligned pointer) come on top, in Status::fallback_reason.
std::string tma_unavailable_reason(const TransposeOptions& options = {});

// The first technique of the decider's ranking (as auto_variant), other than `token` and of its
// kind, that has no alignment or tensor-map needs: what a plan of `token` runs on operands that
// break its 16-byte alignment ("copy" for a copy technique).
std::string fallback_variant(const std::string& token, std::int64_t rows, std::int64_t cols,
                             int elem_bytes, double dram_gbps = 0);

// ---- Transpose-accumulate: dst = alpha * src^T + beta * dst (cuBLAS geam's other half) ----

// The element types whose bits are numbers here.
enum class DataType { kF16, kBF16, kF32, kF64, kI32 };
const char* to_string(DataType type);  // "f16", "bf16", "f32", "f64", "i32"
int data_type_bytes(DataType type);    // 2, 2, 4, 8, 4

// dst[j][i] = alpha * src[i][j] + beta * dst[j][i] for a rows x cols src (dst cols x rows), in
// the type's arithmetic: f16 and bf16 computed in float and rounded once to nearest even,
// f32 in float, f64 in double (product and sum rounded separately, never fused), i32 in
// two's complement with wrap-around (alpha and beta must then be integers in int32's range).
// beta == 0 does not read dst. Layout, stream, synchronize and the fallback options as for
// transpose(). options.variant: "auto", or an accumulate technique (VariantKind::kAccumulate):
//   smem_accumulate  LDG/STG, every case;
//   tma_reduce       beta == 1, f16/bf16/f32/i32, 16-byte rows: a TMA reduce-add store. Where
//                    it cannot run it falls back to smem_accumulate and says why. With
//                    alpha != 1 it rounds alpha * src to the type before the add (two roundings).
Status transpose_accumulate(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                            DataType type, double alpha, double beta,
                            const MatrixLayout& layout = {}, const TransposeOptions& options = {});

// The first accumulate technique of the decider's ranking for this problem's beta class (beta 0:
// dst not read; else read) that takes `type` and `beta`, as auto_variant.
std::string auto_accumulate_variant(std::int64_t rows, std::int64_t cols, DataType type,
                                    double beta, double dram_gbps = 0);

// The CPU reference of transpose_accumulate, on host memory, the same arithmetic bit for bit.
Status reference_transpose_accumulate(const void* src, void* dst, std::int64_t rows,
                                      std::int64_t cols, DataType type, double alpha, double beta,
                                      const MatrixLayout& layout = {});

// CPU reference: the same contract on host memory (element sizes 1, 2, 4, 8, 16). Used to
// verify every GPU result. Rejects null pointers, empty shapes and other element sizes.
Status reference_transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                           int elem_bytes);
// With a layout (dense defaults resolved as transpose() does; copy = true copies instead).
// Elements of dst outside the matrices (padding past a row, gaps between matrices) are left
// as they are.
Status reference_transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                           int elem_bytes, const MatrixLayout& layout, bool copy = false);

struct DeviceInfo {
  int device = 0;
  std::string name;
  int cc = 0;  // major*10 + minor
  int sm_count = 0;
  int sm_clock_khz = 0;
  int mem_clock_khz = 0;
  int mem_bus_bits = 0;
  int l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  int driver_version = 0;   // cudaDriverGetVersion: 1000*major + 10*minor
  int runtime_version = 0;  // cudaRuntimeGetVersion
};

// The current device, or kNoDevice with the CUDA error spelled out.
Status query_device(DeviceInfo* info);

}  // namespace tmakit
