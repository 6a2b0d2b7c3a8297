// A plan's checks (plan_state.hpp): the request, its options and layout, the operands (null,
// element alignment, overlap, device memory), the stream; the messages transpose() gives.
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <host/error.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/wisdom.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit::detail {
namespace {

std::string known_tokens() {
  std::string s = "auto";
  for (const VariantDef& d : registry()) s += ", " + d.info.token;
  return s;
}

std::string hex_ptr(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

std::string swizzle_list(const std::vector<int>& axis) {
  std::string s;
  for (int b : axis)
    s += (s.empty() ? "" : ", ") + (b == 0 ? std::string("none") : std::to_string(b));
  return s;
}

std::string accumulate_tokens() {
  std::string s;
  for (const VariantDef& d : registry())
    if (d.info.kind == VariantKind::kAccumulate) s += (s.empty() ? "" : ", ") + d.info.token;
  return s;
}

}  // namespace

std::string batch_dims_tokens() {
  std::string s;
  for (const VariantDef& d : registry())
    if (d.info.batch_dims >= 3) s += (s.empty() ? "" : ", ") + d.info.token;
  return s;
}

bool auto_batch_candidate(const VariantDef& def) {
  return def.info.batch_dims >= 3 && def.info.token != "reg_tile";
}

Status invalid(std::string msg) {
  return make_status(StatusCode::kInvalidArgument, std::move(msg));
}

Status check_device_pointer(const void* p, const char* name) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (is_sticky_error(err)) {
      int dev = 0;
      cudaGetDevice(&dev);
      return make_status(StatusCode::kCudaError, sticky_error_text(dev, err));
    }
    return invalid(std::string(name) + " (" + hex_ptr(p) +
                   ") is not a CUDA pointer: " + cuda_error_text(err));
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    return invalid(std::string(name) + " (" + hex_ptr(p) +
                   ") is not device-accessible memory (pageable host memory?): allocate it with "
                   "cudaMalloc, cudaMallocManaged or cudaHostAlloc");
  return {};
}

Status check_stream(int device, cudaStream_t stream, bool synchronize) {
  if (synchronize) {
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone)
      return invalid(
          "synchronize = true on a stream that is being captured into a CUDA graph (a "
          "capturing stream cannot be synchronized)");
    cudaGetLastError();
  }
  return check_context_and_stream(device, stream);
}

// A technique's default swizzle: its widest (128B where it has one).
int default_swizzle_bytes(const VariantInfo& info) {
  return info.swizzle_axis_bytes.empty() ? 0 : info.swizzle_axis_bytes.back();
}

// Why an accumulate technique cannot take this call's type and scalars (empty: it can).
std::string accumulate_unsupported(const VariantDef& def, const AccumulateCall& acc) {
  if (def.info.token != "tma_reduce") return {};
  if (acc.beta != 1.0)
    return "tma_reduce adds into dst (cp.reduce.async.bulk.tensor .add), so beta must be 1 (got " +
           std::to_string(acc.beta) + ")";
  if (acc.type == DataType::kF64)
    return "tma_reduce: the TMA reduce store has no .add for f64 (it adds f16, bf16, f32 and "
           "32-bit integers)";
  return {};
}

Status check_null(const void* src, const void* dst) {
  if (src == nullptr) return invalid("src is a null pointer");
  if (dst == nullptr) return invalid("dst is a null pointer");
  return {};
}

Status check_aligned_to_element(const void* src, const void* dst, int elem_bytes) {
  for (const auto& [p, name] : {std::pair<const void*, const char*>{src, "src"}, {dst, "dst"}})
    if (reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(elem_bytes) != 0)
      return invalid(std::string(name) + " (" + hex_ptr(p) + ") is not aligned to the " +
                     std::to_string(elem_bytes) + "-byte element size");
  return {};
}

Status check_no_overlap(const void* src, std::int64_t src_span_bytes, const void* dst,
                        std::int64_t dst_span_bytes, const char* operation) {
  const auto s0 = reinterpret_cast<std::uintptr_t>(src), d0 = reinterpret_cast<std::uintptr_t>(dst);
  if (s0 < d0 + static_cast<std::uintptr_t>(dst_span_bytes) &&
      d0 < s0 + static_cast<std::uintptr_t>(src_span_bytes))
    return invalid("src [" + hex_ptr(src) + ", +" + std::to_string(src_span_bytes) + ") and dst [" +
                   hex_ptr(dst) + ", +" + std::to_string(dst_span_bytes) +
                   ") overlap: " + operation + " is out-of-place");
  return {};
}

Request transpose_request(std::int64_t rows, std::int64_t cols, int elem_bytes,
                          const MatrixLayout& layout, const TransposeOptions& options) {
  Request req;
  req.rows = rows;
  req.cols = cols;
  req.elem_bytes = elem_bytes;
  req.layout = layout;
  req.options = options;
  return req;
}

Status accumulate_request(std::int64_t rows, std::int64_t cols, DataType type, double alpha,
                          double beta, const MatrixLayout& layout, const TransposeOptions& options,
                          Request* req) {
  const int e = data_type_bytes(type);
  if (e == 0)
    return invalid("unknown data type " + std::to_string(static_cast<int>(type)) +
                   " (known: f16, bf16, f32, f64, i32)");
  *req = transpose_request(rows, cols, e, layout, options);
  req->accumulate = true;
  req->acc = {type, alpha, beta};
  return {};
}

Status check_request(const Request& req, const void* src, const void* dst, bool check_operands,
                     const VariantDef** named, ResolvedLayout* lay) {
  const TransposeOptions& options = req.options;
  const AccumulateCall* acc = req.accumulate ? &req.acc : nullptr;
  // 1. The variant and its axes.
  const bool is_auto = options.variant == "auto";
  const VariantDef* def = nullptr;
  if (!is_auto) {
    def = find_variant_def(options.variant);
    if (def == nullptr)
      return invalid("unknown variant '" + options.variant + "' (known: " + known_tokens() + ")");
    const bool accumulates = def->info.kind == VariantKind::kAccumulate;
    if (acc == nullptr && accumulates)
      return invalid("variant '" + def->info.token +
                     "' is a transpose-accumulate technique: call transpose_accumulate()");
    if (acc != nullptr && !accumulates)
      return invalid("variant '" + def->info.token +
                     "' is not a transpose-accumulate technique (those are: auto, " +
                     accumulate_tokens() + ")");
  }
  if (acc != nullptr && acc->type == DataType::kI32)
    for (const auto& [v, name] :
         {std::pair<double, const char*>{acc->alpha, "alpha"}, {acc->beta, "beta"}})
      if (!(v == static_cast<double>(static_cast<std::int64_t>(v))) || v < -2147483648.0 ||
          v > 2147483647.0)
        return invalid(std::string(name) + " must be an integer in int32's range for i32 (got " +
                       std::to_string(v) + ")");
  const int sw = options.swizzle_bytes;
  if (sw != -1 && sw != 0 && sw != 32 && sw != 64 && sw != 128)
    return invalid("swizzle_bytes must be -1 (default), 0, 32, 64 or 128 (got " +
                   std::to_string(sw) + ")");
  if (is_auto && (sw != -1 || options.barrier != TmaBarrier::kDefault))
    return invalid(
        "swizzle_bytes and barrier choose among a TMA technique's variants: name the "
        "technique instead of 'auto'");
  if (def != nullptr && sw != -1) {
    const std::vector<int>& axis = def->info.swizzle_axis_bytes;
    if (std::find(axis.begin(), axis.end(), sw) == axis.end())
      return invalid("variant '" + def->info.token + "' does not take swizzle_bytes = " +
                     std::to_string(sw) + " (its swizzle modes: " + swizzle_list(axis) + ")");
  }
  if (def != nullptr && options.barrier != TmaBarrier::kDefault && !def->info.barrier_axis)
    return invalid("variant '" + def->info.token +
                   "' has no barrier-style axis (barrier = " + to_string(options.barrier) + ")");

  // 2. Arguments, all before touching the device.
  if (check_operands)
    if (Status s = check_null(src, dst); !s) return s;
  const std::int64_t rows = req.rows, cols = req.cols;
  const int elem_bytes = req.elem_bytes;
  if (rows < 1) return invalid("rows must be >= 1 (got " + std::to_string(rows) + ")");
  if (cols < 1) return invalid("cols must be >= 1 (got " + std::to_string(cols) + ")");
  if (elem_bit(elem_bytes) == 0)
    return invalid("element size " + std::to_string(elem_bytes) +
                   " bytes is not one of 1, 2, 4, 8, 16");
  if (def != nullptr && !def->info.supports_elem_bytes(elem_bytes))
    return make_status(StatusCode::kUnsupported, "variant '" + def->info.token +
                                                     "' does not support " +
                                                     std::to_string(elem_bytes) + "-byte elements");
  if (check_operands)
    if (Status s = check_aligned_to_element(src, dst, elem_bytes); !s) return s;
  const bool copy = def != nullptr && def->info.kind == VariantKind::kCopy;
  if (req.permute_batch) {
    if (def != nullptr && def->info.batch_dims < 3)
      return make_status(StatusCode::kUnsupported,
                         "variant '" + def->info.token +
                             "' takes a batch of one dimension; this permutation runs as a batch "
                             "of transposes over several (the techniques that take one: " +
                             batch_dims_tokens() + ")");
    lay->strides = req.batch_strides;
    lay->src_span_bytes = req.src_span_bytes;
    lay->dst_span_bytes = req.dst_span_bytes;
    lay->dense = false;
  } else if (Status s = resolve_layout(rows, cols, elem_bytes, req.layout, copy, lay); !s) {
    return s;
  }
  if (def != nullptr && !def->info.strided && !lay->dense)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + def->info.token +
                           "' takes dense operands only (leading dimensions and batch strides "
                           "must be the defaults)");
  if (check_operands)
    if (Status s =
            check_no_overlap(src, lay->src_span_bytes, dst, lay->dst_span_bytes, "transpose");
        !s)
      return s;
  *named = def;
  return {};
}

}  // namespace tmakit::detail
