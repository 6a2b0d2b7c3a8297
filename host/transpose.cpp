// The public transpose: validate everything a user can get wrong (before anything is
// launched, so a rejected call writes nothing), resolve `auto`, launch through the registry.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <host/device.hpp>
#include <host/error.hpp>
#include <host/registry.hpp>
#include <kernels/common/elem.hpp>

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
    cudaGetLastError();  // clear the non-sticky error
    return invalid(std::string(name) + " (" + hex_ptr(p) +
                   ") is not a CUDA pointer: " + cuda_error_text(err));
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    return invalid(std::string(name) + " (" + hex_ptr(p) +
                   ") is not device-accessible memory (pageable host memory?): allocate it with "
                   "cudaMalloc, cudaMallocManaged or cudaHostAlloc");
  return {};
}

}  // namespace

std::string auto_variant(std::int64_t /*rows*/, std::int64_t /*cols*/, int elem_bytes) {
  // The fastest classic technique per element size, measured with `tmakit --elem-bytes E` at
  // 8192x8192 on the H100 (docs/perf-notes.md, 2026-11-21): 1 B vec_padded 85.9% of copy,
  // 2 B vec_padded 83.6%, 4 B smem_xor 92.8%, 8 B smem_padded 97.8%.
  switch (elem_bytes) {
    case 1:
    case 2:
      return "vec_padded";
    case 8:
      return "smem_padded";
    default:
      return "smem_xor";
  }
}

Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const TransposeOptions& options) {
  // 1. The variant.
  const bool is_auto = options.variant == "auto";
  const std::string token = is_auto ? auto_variant(rows, cols, elem_bytes) : options.variant;
  const VariantDef* def = find_variant_def(token);
  if (def == nullptr)
    return invalid("unknown variant '" + options.variant + "' (known: " + known_tokens() + ")");

  // 2. Arguments, all before touching the device.
  if (src == nullptr) return invalid("src is a null pointer");
  if (dst == nullptr) return invalid("dst is a null pointer");
  if (rows < 1) return invalid("rows must be >= 1 (got " + std::to_string(rows) + ")");
  if (cols < 1) return invalid("cols must be >= 1 (got " + std::to_string(cols) + ")");
  if (elem_bit(elem_bytes) == 0)
    return invalid("element size " + std::to_string(elem_bytes) +
                   " bytes is not one of 1, 2, 4, 8, 16");
  if (!def->info.supports_elem_bytes(elem_bytes))
    return make_status(StatusCode::kUnsupported, "variant '" + token + "' does not support " +
                                                     std::to_string(elem_bytes) + "-byte elements");
  // rows * cols * elem_bytes must fit in a signed 64-bit byte count.
  constexpr std::int64_t kMaxBytes = INT64_MAX / 2;
  if (rows > kMaxBytes / cols || rows * cols > kMaxBytes / elem_bytes)
    return invalid("matrix of " + std::to_string(rows) + " x " + std::to_string(cols) + " x " +
                   std::to_string(elem_bytes) + " bytes is too large to address");
  const std::int64_t bytes = rows * cols * elem_bytes;
  const auto s0 = reinterpret_cast<std::uintptr_t>(src), d0 = reinterpret_cast<std::uintptr_t>(dst);
  if (s0 < d0 + static_cast<std::uintptr_t>(bytes) && d0 < s0 + static_cast<std::uintptr_t>(bytes))
    return invalid("src [" + hex_ptr(src) + ", +" + std::to_string(bytes) + ") and dst [" +
                   hex_ptr(dst) + ", +" + std::to_string(bytes) +
                   ") overlap: transpose is out-of-place");

  // 3. The device.
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;
  if (caps.cc < def->info.min_cc)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + token + "' needs compute capability " +
                           std::to_string(def->info.min_cc / 10) + "." +
                           std::to_string(def->info.min_cc % 10) + "; device " +
                           std::to_string(caps.device) + " has " + std::to_string(caps.cc / 10) +
                           "." + std::to_string(caps.cc % 10));
  if (Status s = check_device_pointer(src, "src"); !s) return s;
  if (Status s = check_device_pointer(dst, "dst"); !s) return s;

  // 4. Launch.
  kernels::LaunchArgs args;
  args.src = src;
  args.dst = dst;
  args.rows = rows;
  args.cols = cols;
  args.elem_bytes = elem_bytes;
  args.stream = options.stream;
  args.sm_count = caps.sm_count;
  Status result;
  result.variant = token;
  const cudaError_t err = def->launch(args);
  if (err != cudaSuccess) {
    Status s = cuda_status(err, ("launching '" + token + "'").c_str());
    s.variant = token;
    return s;
  }
  if (options.synchronize) {
    const cudaError_t serr = cudaStreamSynchronize(options.stream);
    if (serr != cudaSuccess) {
      Status s = cuda_status(serr, ("running '" + token + "'").c_str());
      s.variant = token;
      return s;
    }
  }
  return result;
}

}  // namespace tmakit
