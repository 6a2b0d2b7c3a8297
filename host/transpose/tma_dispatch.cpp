#include <host/transpose/tma_dispatch.hpp>

#include <algorithm>
#include <array>
#include <mutex>
#include <cstdint>
#include <host/tensor_map/driver.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

// One side of the call: a batch of `batch` row-major matrices of rows x cols elements of
// elem_bytes, rows ld_elems apart, matrices batch_elems apart.
struct Side {
  const char* name;
  const void* address;
  std::int64_t batch, rows, cols, ld_elems, batch_elems;
};

// The side as a 3-D map (batch, rows, cols) of type_bytes elements, boxes one matrix deep: the
// inner extent scales by elem_bytes / type_bytes.
std::string encode_side(const Side& side, const kernels::TmaMapPlan& mp, int swizzle,
                        int elem_bytes, int cc, CUtensorMap* out) {
  const auto e = static_cast<std::uint64_t>(elem_bytes);
  const TmaType type =
      mp.data_type >= 0 ? static_cast<TmaType>(mp.data_type) : tma_unsigned_type(mp.type_bytes);
  TensorMapSpec spec = matrix_spec(
      type, side.address, static_cast<std::uint64_t>(side.rows),
      static_cast<std::uint64_t>(side.cols) * e / static_cast<std::uint64_t>(mp.type_bytes),
      static_cast<std::uint64_t>(side.ld_elems) * e, static_cast<std::uint32_t>(mp.box_rows),
      static_cast<std::uint32_t>(mp.box_cols), static_cast<TmaSwizzle>(swizzle));
  spec.rank = 3;
  spec.shape = {static_cast<std::uint64_t>(side.batch), spec.shape[0], spec.shape[1], 0, 0};
  spec.pitch_bytes = {static_cast<std::uint64_t>(side.batch_elems) * e, spec.pitch_bytes[0], 0, 0,
                      0};
  spec.box = {1, spec.box[0], spec.box[1], 0, 0};
  return validate_and_encode(spec, cc,
                             std::string(side.name) + " tensor map (dims: batch, rows, cols)", out);
}

// The side a technique reads or writes with 16-byte vectors: a 16-byte aligned address, row
// pitch and batch stride.
std::string check_vec16(const Side& side, int elem_bytes) {
  const std::string why =
      std::string(" (the technique accesses ") + side.name + " with 16-byte vectors)";
  if (reinterpret_cast<std::uintptr_t>(side.address) % 16 != 0)
    return std::string(side.name) + " address is not 16-byte aligned" + why;
  const std::int64_t pitch = side.ld_elems * elem_bytes;
  if (pitch % 16 != 0)
    return std::string(side.name) + " row pitch " + std::to_string(pitch) +
           " bytes is not a multiple of 16" + why;
  const std::int64_t stride = side.batch_elems * elem_bytes;
  if (side.batch > 1 && stride % 16 != 0)
    return std::string(side.name) + " batch stride " + std::to_string(stride) +
           " bytes is not a multiple of 16" + why;
  return {};
}

// The side a technique moves in whole 16-byte chunks or segments: its row length.
std::string check_rows16(const Side& side, int elem_bytes) {
  const std::int64_t row_bytes = side.cols * elem_bytes;
  if (row_bytes % 16 != 0)
    return std::string(side.name) + " rows are " + std::to_string(row_bytes) +
           " bytes long, not a multiple of 16 (the technique moves " + side.name +
           " rows in whole 16-byte chunks)";
  return {};
}

}  // namespace

TmaType tma_unsigned_type(int bytes) {
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

std::string tma_unavailable(bool allow_tma, const DeviceCaps& caps) {
  if (!allow_tma) return "TMA disabled by TransposeOptions::allow_tma = false";
  if (env_settings().tma_disabled) return "TMA disabled by TMAKIT_DISABLE_TMA=1";
  if (caps.cc < 90)
    return "device " + std::to_string(caps.device) + " has compute capability " +
           std::to_string(caps.cc / 10) + "." + std::to_string(caps.cc % 10) +
           simulated_cc_note(caps.cc) + "; TMA needs 9.0";
  // The device has TMA; the build may not (a package built for "80", a project's own
  // CMAKE_CUDA_ARCHITECTURES without 90): its TMA kernels would be PTX compiled without TMA,
  // whose bodies trap.
  if (caps.code_error == cudaSuccess && caps.code_ptx_version < 90)
    return "this tmakit was built without sm_90 code (CMAKE_CUDA_ARCHITECTURES=" +
           std::string(kernels::built_cuda_architectures()) + "): on device " +
           std::to_string(caps.device) + " its kernels run as compute_" +
           std::to_string(caps.code_ptx_version) +
           " PTX compiled by the driver, which has no TMA; add 90 to CMAKE_CUDA_ARCHITECTURES";
  if (caps.described) return {};  // nothing is encoded for a described device
  PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (Status s = driver_encode_tiled(&fn); !s)
    return "cuTensorMapEncodeTiled is unavailable: " + s.message;
  return {};
}

namespace {

// Everything a technique's plan, its checks and its encoded maps depend on.
struct MapKey {
  const VariantDef* def = nullptr;
  const void* src = nullptr;
  const void* dst = nullptr;
  std::int64_t rows = 0, cols = 0;
  int elem_bytes = 0, swizzle = 0, cc = 0, device = 0;
  NumType num_type = NumType::kNone;  // an accumulate's dst map type
  BatchStrides strides;
  bool operator==(const MapKey& o) const {
    const BatchStrides &a = strides, &b = o.strides;
    return def == o.def && src == o.src && dst == o.dst && rows == o.rows && cols == o.cols &&
           elem_bytes == o.elem_bytes && swizzle == o.swizzle && cc == o.cc && device == o.device &&
           num_type == o.num_type && a.batch == b.batch && a.src_ld_elems == b.src_ld_elems &&
           a.dst_ld_elems == b.dst_ld_elems && a.src_batch_elems == b.src_batch_elems &&
           a.dst_batch_elems == b.dst_batch_elems;
  }
};

struct MapEntry {
  MapKey key;
  std::string why;  // the fallback reason, or empty: then maps (and which are used) hold
  TmaMaps maps;
  bool src_used = false, dst_used = false;
};

// The last few calls' tensor maps: a caller that transposes the same buffers again (the
// common case in a loop or a layer) skips planning, validating and encoding (the host
// time per call). Keyed on the whole call, addresses included, so a hit is exactly what
// encoding again would give.
class MapCache {
 public:
  // On a hit: the entry's reason into *why and, when it is empty, its maps into *maps and
  // their pointers into *args (copied straight there: no whole-entry copy on the per-call path).
  bool find(const MapKey& k, std::string* why, TmaMaps* maps, kernels::LaunchArgs* args) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const MapEntry& e : ring_)
      if (e.key.def != nullptr && e.key == k) {
        *why = e.why;
        if (e.why.empty()) {
          if (e.src_used) {
            maps->src = e.maps.src;
            args->src_map = &maps->src;
          }
          if (e.dst_used) {
            maps->dst = e.maps.dst;
            args->dst_map = &maps->dst;
          }
        }
        return true;
      }
    return false;
  }
  void put(const MapEntry& e) {
    std::lock_guard<std::mutex> lock(mu_);
    ring_[next_++ % ring_.size()] = e;
  }

 private:
  std::mutex mu_;
  std::array<MapEntry, 16> ring_{};
  std::size_t next_ = 0;
};

MapCache& map_cache() {
  static MapCache cache;
  return cache;
}

std::string plan_and_encode(const VariantDef& def, const DeviceCaps& caps,
                            kernels::LaunchArgs* args, TmaMaps* maps);

}  // namespace

std::string prepare_tma(const VariantDef& def, bool allow_tma, const DeviceCaps& caps,
                        kernels::LaunchArgs* args, TmaMaps* maps) {
  if (def.info.uses_tma) {
    if (std::string why = tma_unavailable(allow_tma, caps); !why.empty()) return why;
  } else if (caps.cc < def.info.min_cc) {  // cp.async: sm_80
    return "device " + std::to_string(caps.device) + " has compute capability " +
           std::to_string(caps.cc / 10) + "." + std::to_string(caps.cc % 10) +
           simulated_cc_note(caps.cc) + "; '" + def.info.token + "' needs " +
           std::to_string(def.info.min_cc / 10) + "." + std::to_string(def.info.min_cc % 10);
  }
  if (caps.described) return plan_and_encode(def, caps, args, maps);  // its maps are not kept
  MapKey key;
  key.def = &def;
  key.src = args->src;
  key.dst = args->dst;
  key.rows = args->rows;
  key.cols = args->cols;
  key.elem_bytes = args->elem_bytes;
  key.swizzle = args->swizzle;
  key.cc = caps.cc;
  key.device = caps.device;
  key.num_type = args->num_type;
  key.strides = args->strides;
  if (std::string why; map_cache().find(key, &why, maps, args)) return why;
  MapEntry fresh;
  fresh.key = key;
  fresh.why = plan_and_encode(def, caps, args, maps);
  if (fresh.why.empty()) {
    fresh.maps = *maps;
    fresh.src_used = args->src_map != nullptr;
    fresh.dst_used = args->dst_map != nullptr;
  }
  map_cache().put(fresh);
  return fresh.why;
}

namespace {

std::string plan_and_encode(const VariantDef& def, const DeviceCaps& caps,
                            kernels::LaunchArgs* args, TmaMaps* maps) {
  if (def.plan == nullptr) return "no tensor-map plan for '" + def.info.token + "'";

  const kernels::TmaPlan plan = def.plan(*args);
  if (plan.shape_rule != nullptr) return plan.shape_rule;
  const bool copy = def.info.kind == VariantKind::kCopy;
  const int e = args->elem_bytes;
  const BatchStrides& st = args->strides;
  // dst is cols x rows (a copy: rows x cols).
  const Side src{"src",      args->src,       st.batch,          args->rows,
                 args->cols, st.src_ld_elems, st.src_batch_elems};
  const Side dst{"dst",
                 args->dst,
                 st.batch,
                 copy ? args->rows : args->cols,
                 copy ? args->cols : args->rows,
                 st.dst_ld_elems,
                 st.dst_batch_elems};
  // TMA coordinates are 32-bit signed, counted in the map's elements (int4_8x8: 4-byte words).
  constexpr std::int64_t kMaxCoord = INT32_MAX;
  for (const kernels::TmaMapPlan* mp : {&plan.src, &plan.dst}) {
    if (!mp->used) continue;
    const std::int64_t words = std::max(args->rows, args->cols) * e / mp->type_bytes;
    if (std::max(args->rows, args->cols) > kMaxCoord || words > kMaxCoord)
      return "TMA coordinates are 32-bit signed: rows and cols (in " +
             std::to_string(mp->type_bytes) + "-byte map elements) must be < 2^31 (got " +
             std::to_string(args->rows) + " x " + std::to_string(args->cols) + " of " +
             std::to_string(e) + "-byte elements)";
    if (st.batch > kMaxCoord)
      return "TMA coordinates are 32-bit signed: the batch must be < 2^31 (got " +
             std::to_string(st.batch) + ")";
  }
  if (plan.src_vec16)
    if (std::string w = check_vec16(src, e); !w.empty()) return w;
  if (plan.dst_vec16)
    if (std::string w = check_vec16(dst, e); !w.empty()) return w;
  if (plan.src_rows16)
    if (std::string w = check_rows16(src, e); !w.empty()) return w;
  if (plan.dst_rows16)
    if (std::string w = check_rows16(dst, e); !w.empty()) return w;
  if (plan.src.used) {
    if (std::string w = encode_side(src, plan.src, plan.swizzle, e, caps.cc,
                                    caps.described ? nullptr : &maps->src);
        !w.empty())
      return w;
    args->src_map = &maps->src;
  }
  if (plan.dst.used) {
    if (std::string w = encode_side(dst, plan.dst, plan.swizzle, e, caps.cc,
                                    caps.described ? nullptr : &maps->dst);
        !w.empty())
      return w;
    args->dst_map = &maps->dst;
    // Not a cuTensorMapEncodeTiled rule, measured on the H100 (tests/sm90/
    // test_tma_store_rows.cpp, docs/tensor-maps.md): a TMA store whose box crosses a row's end
    // also writes the rest of that row's last 16-byte granule, into the padding a pitch leaves
    // (a 40-byte row with a 48-byte pitch: bytes 40..47), for every element type; never past
    // that granule. Rows that are 16-byte multiples have no such granule.
    if ((dst.cols * e) % 16 != 0)
      return "dst rows are " + std::to_string(dst.cols * e) +
             " bytes long, not a multiple of 16: a TMA store writes on to the row's next 16-byte "
             "boundary, into the padding of dst_ld_elems (measured on the H100)";
  }
  return {};
}

}  // namespace

}  // namespace tmakit
