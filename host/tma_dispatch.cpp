#include <host/tma_dispatch.hpp>

#include <cstdint>
#include <cstdlib>
#include <host/driver_api.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

TmaType unsigned_type(int bytes) {
  switch (bytes) {
    case 1:
      return TmaType::kU8;
    case 2:
      return TmaType::kU16;
    case 8:
      return TmaType::kU64;
    default:
      return TmaType::kU32;
  }
}

// A row-major matrix of rows x cols elements of elem_bytes, seen by a map of type_bytes
// elements: the inner extent scales by elem_bytes / type_bytes.
std::string encode_side(const char* side, const kernels::TmaMapPlan& mp, int swizzle,
                        const void* address, std::int64_t rows, std::int64_t cols, int elem_bytes,
                        int cc, CUtensorMap* out) {
  const std::uint64_t pitch = static_cast<std::uint64_t>(cols) * elem_bytes;
  const TensorMapSpec spec =
      matrix_spec(unsigned_type(mp.type_bytes), address, static_cast<std::uint64_t>(rows),
                  pitch / static_cast<std::uint64_t>(mp.type_bytes), pitch,
                  static_cast<std::uint32_t>(mp.box_rows), static_cast<std::uint32_t>(mp.box_cols),
                  static_cast<TmaSwizzle>(swizzle));
  const ValidationReport rep = validate(spec, cc);
  if (!rep.ok()) {
    std::string msg;  // the errors only: warnings do not stop TMA
    for (const RuleViolation& v : rep.errors) msg += (msg.empty() ? "" : "; ") + v.message;
    return std::string(side) + " tensor map: " + msg;
  }
  Status why;
  const CUresult r = encode_unchecked(spec, out, &why);
  if (!why.ok()) return std::string(side) + " tensor map: " + why.message;
  if (r != CUDA_SUCCESS)
    return std::string(side) + " tensor map: cuTensorMapEncodeTiled returned " + curesult_name(r);
  return {};
}

// The side a technique reads or writes with 16-byte vectors: 16-byte aligned rows.
std::string check_vec16(const char* side, const void* p, std::int64_t row_elems, int elem_bytes) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  if (addr % 16 != 0)
    return std::string(side) + " address is not 16-byte aligned (the technique accesses " + side +
           " with 16-byte vectors)";
  const std::int64_t pitch = row_elems * elem_bytes;
  if (pitch % 16 != 0)
    return std::string(side) + " row pitch " + std::to_string(pitch) +
           " bytes is not a multiple of 16 (the technique accesses " + side +
           " with 16-byte vectors)";
  return {};
}

}  // namespace

bool tma_disabled_by_env() {
  const char* e = std::getenv("TMAKIT_DISABLE_TMA");
  return e != nullptr && std::string(e) == "1";
}

std::string prepare_tma(const VariantDef& def, bool allow_tma, const DeviceCaps& caps,
                        kernels::LaunchArgs* args, TmaMaps* maps) {
  if (!allow_tma) return "TMA disabled by TransposeOptions::allow_tma = false";
  if (tma_disabled_by_env()) return "TMA disabled by TMAKIT_DISABLE_TMA=1";
  if (caps.cc < 90)
    return "device " + std::to_string(caps.device) + " has compute capability " +
           std::to_string(caps.cc / 10) + "." + std::to_string(caps.cc % 10) + "; TMA needs 9.0";
  PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (Status s = driver_encode_tiled(&fn); !s)
    return "cuTensorMapEncodeTiled is unavailable: " + s.message;
  constexpr std::int64_t kMaxCoord = INT32_MAX;
  if (args->rows > kMaxCoord || args->cols > kMaxCoord)
    return "TMA coordinates are 32-bit signed: rows and cols must be < 2^31 (got " +
           std::to_string(args->rows) + " x " + std::to_string(args->cols) + ")";
  if (def.plan == nullptr) return "no tensor-map plan for '" + def.info.token + "'";

  const kernels::TmaPlan plan = def.plan(*args);
  const bool copy = def.info.kind == VariantKind::kCopy;
  const int e = args->elem_bytes;
  // dst is cols x rows (a copy: rows x cols).
  const std::int64_t dst_rows = copy ? args->rows : args->cols;
  const std::int64_t dst_cols = copy ? args->cols : args->rows;
  if (plan.src_vec16)
    if (std::string w = check_vec16("src", args->src, args->cols, e); !w.empty()) return w;
  if (plan.dst_vec16)
    if (std::string w = check_vec16("dst", args->dst, dst_cols, e); !w.empty()) return w;
  if (plan.src.used) {
    if (std::string w = encode_side("src", plan.src, plan.swizzle, args->src, args->rows,
                                    args->cols, e, caps.cc, &maps->src);
        !w.empty())
      return w;
    args->src_map = &maps->src;
  }
  if (plan.dst.used) {
    if (std::string w = encode_side("dst", plan.dst, plan.swizzle, args->dst, dst_rows, dst_cols, e,
                                    caps.cc, &maps->dst);
        !w.empty())
      return w;
    args->dst_map = &maps->dst;
  }
  return {};
}

}  // namespace tmakit
