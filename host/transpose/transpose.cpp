// The public transpose: validate everything a user can get wrong (before anything is
// launched, so a rejected call writes nothing), resolve `auto`, launch through the registry.
// `auto`'s table and the classic fallbacks (auto_variant, fallback_variant,
// auto_accumulate_variant) are in auto_table.cpp: comments elsewhere that place them here
// (kernels/launchers.hpp, kernels/classic/reg_realign.cu, docs/perf-guide.md) predate the split.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <host/device.hpp>
#include <host/error.hpp>
#include <host/transpose/layout.hpp>
#include <host/transpose/registry.hpp>
#include <host/transpose/tma_dispatch.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {
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

Status invalid(std::string msg) {
  return make_status(StatusCode::kInvalidArgument, std::move(msg));
}

// Rejects pointers the GPU cannot dereference (pageable host memory, freed or foreign
// addresses) instead of letting the kernel fault and poison the context.
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

std::string swizzle_list(const std::vector<int>& axis) {
  std::string s;
  for (int b : axis)
    s += (s.empty() ? "" : ", ") + (b == 0 ? std::string("none") : std::to_string(b));
  return s;
}

// A technique's default swizzle: its widest (128B where it has one).
int default_swizzle_bytes(const VariantInfo& info) {
  return info.swizzle_axis_bytes.empty() ? 0 : info.swizzle_axis_bytes.back();
}

}  // namespace

const char* to_string(TmaBarrier barrier) {
  switch (barrier) {
    case TmaBarrier::kPtx:
      return "ptx";
    case TmaBarrier::kCudaBarrier:
      return "cuda_barrier";
    default:
      return "default";
  }
}

const char* to_string(DataType type) {
  switch (type) {
    case DataType::kF16:
      return "f16";
    case DataType::kBF16:
      return "bf16";
    case DataType::kF32:
      return "f32";
    case DataType::kF64:
      return "f64";
    case DataType::kI32:
      return "i32";
  }
  return "unknown";
}

int data_type_bytes(DataType type) {
  switch (type) {
    case DataType::kF16:
    case DataType::kBF16:
      return 2;
    case DataType::kF32:
    case DataType::kI32:
      return 4;
    case DataType::kF64:
      return 8;
  }
  return 0;
}

namespace {

// What a transpose-accumulate call adds to a transpose call.
struct AccumulateCall {
  DataType type;
  double alpha, beta;
};

NumType num_type_of(DataType type) {
  switch (type) {
    case DataType::kF16:
      return NumType::kF16;
    case DataType::kBF16:
      return NumType::kBF16;
    case DataType::kF32:
      return NumType::kF32;
    case DataType::kF64:
      return NumType::kF64;
    case DataType::kI32:
      return NumType::kI32;
  }
  return NumType::kNone;
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

std::string accumulate_tokens() {
  std::string s;
  for (const VariantDef& d : registry())
    if (d.info.kind == VariantKind::kAccumulate) s += (s.empty() ? "" : ", ") + d.info.token;
  return s;
}

Status run(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
           const MatrixLayout& layout, const TransposeOptions& options, const AccumulateCall* acc) {
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
  if (src == nullptr) return invalid("src is a null pointer");
  if (dst == nullptr) return invalid("dst is a null pointer");
  if (rows < 1) return invalid("rows must be >= 1 (got " + std::to_string(rows) + ")");
  if (cols < 1) return invalid("cols must be >= 1 (got " + std::to_string(cols) + ")");
  if (elem_bit(elem_bytes) == 0)
    return invalid("element size " + std::to_string(elem_bytes) +
                   " bytes is not one of 1, 2, 4, 8, 16");
  if (def != nullptr && !def->info.supports_elem_bytes(elem_bytes))
    return make_status(StatusCode::kUnsupported, "variant '" + def->info.token +
                                                     "' does not support " +
                                                     std::to_string(elem_bytes) + "-byte elements");
  for (const auto& [p, name] : {std::pair<const void*, const char*>{src, "src"}, {dst, "dst"}})
    if (reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(elem_bytes) != 0)
      return invalid(std::string(name) + " (" + hex_ptr(p) + ") is not aligned to the " +
                     std::to_string(elem_bytes) + "-byte element size");
  const bool copy = def != nullptr && def->info.kind == VariantKind::kCopy;
  ResolvedLayout lay;
  if (Status s = resolve_layout(rows, cols, elem_bytes, layout, copy, &lay); !s) return s;
  if (def != nullptr && !def->info.strided && !lay.dense)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + def->info.token +
                           "' takes dense operands only (leading dimensions and batch strides "
                           "must be the defaults)");
  const auto s0 = reinterpret_cast<std::uintptr_t>(src), d0 = reinterpret_cast<std::uintptr_t>(dst);
  const auto s_span = static_cast<std::uintptr_t>(lay.src_span_bytes),
             d_span = static_cast<std::uintptr_t>(lay.dst_span_bytes);
  if (s0 < d0 + d_span && d0 < s0 + s_span)
    return invalid("src [" + hex_ptr(src) + ", +" + std::to_string(lay.src_span_bytes) +
                   ") and dst [" + hex_ptr(dst) + ", +" + std::to_string(lay.dst_span_bytes) +
                   ") overlap: transpose is out-of-place");

  // 3. The device (and a context an earlier fault left unusable), the stream, the technique
  // that will run, and (for TMA) its tensor maps.
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;
  if (Status s = check_context_and_stream(caps.device, options.stream); !s) return s;
  if (std::string why = missing_device_code(caps); !why.empty())
    return make_status(StatusCode::kUnsupported, why);
  if (is_auto)
    def = find_variant_def(
        acc != nullptr ? auto_accumulate_variant(rows, cols, acc->type, acc->beta, caps.dram_gbps)
                       : auto_variant(rows, cols, elem_bytes, lay.strides.batch, caps.dram_gbps));
  // auto_variant sees the shape, not the layout: bulk_flat's batch form takes dense batches
  // only, and smem_flat (its gather without the TMA unit) moves strided ones itself.
  if (is_auto && def != nullptr && def->info.token == "bulk_flat") {
    const BatchStrides& st = lay.strides;
    const bool dense = st.src_ld_elems == cols && st.dst_ld_elems == rows &&
                       st.src_batch_elems == rows * cols && st.dst_batch_elems == rows * cols;
    if (!dense) def = find_variant_def("smem_flat");
  }
  kernels::LaunchArgs args;
  args.src = src;
  args.dst = dst;
  args.rows = rows;
  args.cols = cols;
  args.elem_bytes = elem_bytes;
  args.strides = lay.strides;
  args.stream = options.stream;
  args.sm_count = caps.sm_count;
  args.dram_gbps = caps.dram_gbps;
  args.cc = caps.cc;
  args.swizzle = tma_swizzle_mode_from_bytes(sw == -1 ? default_swizzle_bytes(def->info) : sw);
  args.barrier =
      options.barrier == TmaBarrier::kCudaBarrier ? BarrierStyle::kCudaBarrier : BarrierStyle::kPtx;
  if (acc != nullptr) {
    args.num_type = num_type_of(acc->type);
    args.alpha = acc->alpha;
    args.beta = acc->beta;
  }
  Status result;
  TmaMaps maps;
  if (def->plan != nullptr) {  // TMA, bulk-copy and cp.async techniques: checked, may fall back
    std::string why = acc != nullptr ? accumulate_unsupported(*def, *acc) : std::string();
    if (why.empty()) why = prepare_tma(*def, options.allow_tma, caps, &args, &maps);
    if (!why.empty()) {
      if (!is_auto && !options.allow_fallback)
        return make_status(StatusCode::kUnsupported,
                           "variant '" + def->info.token + "' cannot run this call: " + why +
                               " (allow_fallback = false, so its classic fallback '" +
                               fallback_variant(def->info.token, rows, cols, elem_bytes) +
                               "' did not run)");
      const VariantDef* fb =
          find_variant_def(fallback_variant(def->info.token, rows, cols, elem_bytes));
      if (!fb->info.strided && !lay.dense)
        return make_status(StatusCode::kUnsupported,
                           "variant '" + def->info.token + "' cannot run this call: " + why +
                               "; its fallback '" + fb->info.token + "' takes dense operands only");
      def = fb;
      result.fallback_reason = why;
    }
  }
  const std::string& token = def->info.token;
  if (caps.cc < def->info.min_cc)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + token + "' needs compute capability " +
                           std::to_string(def->info.min_cc / 10) + "." +
                           std::to_string(def->info.min_cc % 10) + "; device " +
                           std::to_string(caps.device) + " has " + std::to_string(caps.cc / 10) +
                           "." + std::to_string(caps.cc % 10) + simulated_cc_note(caps.cc));
  if (Status s = check_device_pointer(src, "src"); !s) return s;
  if (Status s = check_device_pointer(dst, "dst"); !s) return s;

  // 4. Launch.
  result.variant = token;
  auto failed = [&](cudaError_t err, const char* what) {
    Status s = cuda_status(err, (std::string(what) + " '" + token + "'").c_str());
    s.variant = token;
    s.fallback_reason = result.fallback_reason;
    return s;
  };
  if (const cudaError_t err = def->launch(args); err != cudaSuccess) {
    if (is_sticky_error(err)) {  // an earlier fault: say so, not "launching failed"
      Status s = make_status(StatusCode::kCudaError, sticky_error_text(caps.device, err));
      s.variant = token;
      return s;
    }
    return failed(err, "launching");
  }
  if (options.synchronize)
    if (const cudaError_t err = cudaStreamSynchronize(options.stream); err != cudaSuccess)
      return failed(err, "running");
  return result;
}

}  // namespace

Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const TransposeOptions& options) {
  return run(src, dst, rows, cols, elem_bytes, MatrixLayout{}, options, nullptr);
}

Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const MatrixLayout& layout, const TransposeOptions& options) {
  return run(src, dst, rows, cols, elem_bytes, layout, options, nullptr);
}

Status transpose_accumulate(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                            DataType type, double alpha, double beta, const MatrixLayout& layout,
                            const TransposeOptions& options) {
  const int e = data_type_bytes(type);
  if (e == 0)
    return invalid("unknown data type " + std::to_string(static_cast<int>(type)) +
                   " (known: f16, bf16, f32, f64, i32)");
  const AccumulateCall acc{type, alpha, beta};
  return run(src, dst, rows, cols, e, layout, options, &acc);
}

std::string tma_unavailable_reason(const TransposeOptions& options) {
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s.message;
  if (std::string why = missing_device_code(caps); !why.empty()) return why;
  return tma_unavailable(options.allow_tma, caps);
}

}  // namespace tmakit
