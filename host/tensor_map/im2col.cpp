// Im2colSpec -> validate -> encode -> describe, and cuTensorMapReplaceAddress. The rules are
// cuTensorMapEncodeIm2col's doc comment in CUDA 13.0's cuda.h; those it shares with the tiled
// encode keep the tiled rule ids (host/tensor_map/tiled.cpp), the im2col ones start with
// "im2col_". Which of them the H100 driver enforces was measured by the differential test
// (tests/sm90/test_tensor_map_driver.cpp, `tmakit tensormap --mode im2col --fuzz N`).
#include <tmakit/tensor_map.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <host/tensor_map/common.hpp>
#include <host/device.hpp>
#include <host/error.hpp>
#include <host/tensor_map/driver.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {
namespace {

using namespace tensor_map_detail;
using S = RuleSeverity;

// clang-format off
const char* const kSharedRuleIds[] = {
  "cc_tensor_map", "data_type_enum", "cc_packed_type", "interleave_enum", "swizzle_enum",
  "cc_atom_swizzle", "l2_promotion_enum", "oob_fill_enum", "address_null", "address_align_16",
  "address_align_32", "address_align_128_swizzle", "dim_range", "dim_packed_multiple",
  "stride_multiple_16", "stride_multiple_32", "stride_max", "stride_covers_dim",
  "elem_stride_range", "elem_stride_inner_ignored", "packed_swizzle_modes", "oob_nan_float_only",
};
const std::vector<TensorMapRule> kIm2colOwnRules = {
  {"im2col_rank", S::kError, true, "an im2col map has rank 3, 4 or 5 (N, up to three spatial dimensions, C)", "cuda.h"},
  {"im2col_corner_range", S::kError, true, "each pixel-box corner offset must be within [-32768, 32767] for rank 3, [-128, 127] for rank 4, [-16, 15] for rank 5", "cuda.h"},
  {"im2col_box_nonempty", S::kError, false, "the bounding box must have non-zero area: shape + upper corner - lower corner >= 1 in every spatial dimension (documented; the H100 driver accepted an extent of 0)", "cuda.h"},
  {"im2col_box_extent_max", S::kError, false, "the bounding-box extent shape + upper corner - lower corner must be below 2^31 (the H100 driver rejected extents from 2^31 to 2^32 - 1 and accepted larger ones, whose 32-bit arithmetic wraps; tmakit rejects both)", "tmakit (H100 driver)"},
  {"im2col_interleave_none", S::kError, false, "tmakit accepts im2col maps with interleave NONE only: the H100 driver rejected interleaved (16B, 32B) im2col specs that every documented rule allows, by a rule not established (docs/tensor-maps.md)", "tmakit (H100 driver)"},
  {"im2col_channels_range", S::kError, true, "channelsPerPixel must be between 1 and 256", "cuda.h"},
  {"im2col_channels_packed_128", S::kError, true, "channelsPerPixel must be 128 for 16U4_ALIGN16B / 16U6_ALIGN16B", "cuda.h"},
  {"im2col_channels_multiple_16", S::kError, true, "channelsPerPixel x element size must be a multiple of 16 bytes (the inner box rule of tiled maps; not in the im2col doc, enforced by the H100 driver)", "H100 driver"},
  {"im2col_pixels_range", S::kError, true, "pixelsPerColumn must be between 1 and 1024", "cuda.h"},
  {"im2col_swizzle_span", S::kError, true, "with interleave NONE and a swizzle, channelsPerPixel x element size must be at most the swizzle span (32, 64 or 128 bytes)", "cuda.h"},
  {"im2col_box_fits_smem", S::kError, false, "one copy (pixelsPerColumn x channelsPerPixel x element size) must fit in shared memory: at most 233,472 bytes on sm_90", "tmakit"},
};
// clang-format on

std::vector<TensorMapRule> make_rules() {
  std::vector<TensorMapRule> v;
  for (const char* id : kSharedRuleIds) {
    const TensorMapRule* r = find_tensor_map_rule(id);
    if (r == nullptr) {
      std::fprintf(stderr, "tmakit: internal error: unknown tensor-map rule %s\n", id);
      std::abort();
    }
    v.push_back(*r);
  }
  v.insert(v.end(), kIm2colOwnRules.begin(), kIm2colOwnRules.end());
  return v;
}

const TensorMapRule& rule(const char* id) {
  for (const TensorMapRule& r : im2col_rules())
    if (std::string(r.id) == id) return r;
  std::fprintf(stderr, "tmakit: internal error: unknown im2col rule %s\n", id);
  std::abort();
}

const char* kSpatialNames[3][3] = {{"W", "", ""}, {"H", "W", ""}, {"D", "H", "W"}};
// Name of spatial dimension d (row-major, 0..rank-3) of a rank-`rank` map.
std::string spatial(int rank, int d) {
  return kSpatialNames[rank - 3][d];
}

int corner_limit(int rank) {
  return rank == 3 ? 32768 : rank == 4 ? 128 : 16;
}

}  // namespace

const std::vector<TensorMapRule>& im2col_rules() {
  static const std::vector<TensorMapRule> rules = make_rules();
  return rules;
}

Im2colSpec conv2d_im2col_spec(TmaType type, const void* address, std::uint64_t n, std::uint64_t h,
                              std::uint64_t w, std::uint64_t c, int r, int s, int pad_h, int pad_w,
                              std::uint32_t channels_per_pixel, std::uint32_t pixels_per_column) {
  Im2colSpec sp;
  sp.type = type;
  sp.rank = 4;
  sp.address = address;
  const std::uint64_t e = static_cast<std::uint64_t>(tma_type_bits(type)) / 8;
  sp.shape = {n, h, w, c, 0};
  sp.pitch_bytes = {h * w * c * e, w * c * e, c * e, 0, 0};
  sp.lower_corner = {-pad_h, -pad_w, 0};
  sp.upper_corner = {pad_h - (r - 1), pad_w - (s - 1), 0};
  sp.channels_per_pixel = channels_per_pixel;
  sp.pixels_per_column = pixels_per_column;
  return sp;
}

// Row-major -> driver order: dims and strides as for tiled maps; the corners reversed too
// (row-major [D,] [H,] W -> driver W, H, D).
Im2colDriverOrder to_driver_order(const Im2colSpec& spec) {
  TensorMapSpec t;
  t.rank = spec.rank;
  t.shape = spec.shape;
  t.pitch_bytes = spec.pitch_bytes;
  t.elem_strides = spec.elem_strides;
  Im2colDriverOrder d;
  d.dims = to_driver_order(t);
  const int ns = spec.rank >= 3 && spec.rank <= 5 ? spec.rank - 2 : 0;
  for (int i = 0; i < ns; ++i) {
    d.lower_corner[i] = spec.lower_corner[ns - 1 - i];
    d.upper_corner[i] = spec.upper_corner[ns - 1 - i];
  }
  return d;
}

std::uint64_t box_bytes(const Im2colSpec& spec) {
  return static_cast<std::uint64_t>(spec.pixels_per_column) * spec.channels_per_pixel *
         static_cast<std::uint64_t>(tma_type_bits(spec.type)) / 8;
}

std::array<std::uint64_t, 3> im2col_box_pixels(const Im2colSpec& spec) {
  std::array<std::uint64_t, 3> out{};
  if (spec.rank < 3 || spec.rank > 5) return out;
  for (int d = 0; d < spec.rank - 2; ++d) {
    const long long extent =
        static_cast<long long>(spec.shape[1 + d]) + spec.upper_corner[d] - spec.lower_corner[d];
    const std::uint32_t st = spec.elem_strides[1 + d] == 0 ? 1 : spec.elem_strides[1 + d];
    out[d] = extent <= 0 ? 0 : (static_cast<std::uint64_t>(extent) + st - 1) / st;
  }
  return out;
}

ValidationReport validate(const Im2colSpec& s, int cc) {
  ValidationReport rep;
  auto fail = [&](const char* id, const std::string& what) { add_violation(&rep, rule(id), what); };
  const int type_i = static_cast<int>(s.type), il_i = static_cast<int>(s.interleave),
            sw_i = static_cast<int>(s.swizzle);
  const bool type_ok = type_i >= 0 && type_i <= 15, il_ok = il_i >= 0 && il_i <= 2,
             sw_ok = sw_i >= 0 && sw_i <= 6;
  if (cc < 90) fail("cc_tensor_map", "device compute capability " + cc_text(cc));
  const bool rank_ok = s.rank >= 3 && s.rank <= 5;
  if (!rank_ok) fail("im2col_rank", "rank " + std::to_string(s.rank));
  if (!type_ok) fail("data_type_enum", "type " + std::to_string(type_i));
  if (type_ok && is_packed(s.type) && cc < 100)
    fail("cc_packed_type",
         std::string("type ") + to_string(s.type) + " on compute capability " + cc_text(cc));
  if (!il_ok) fail("interleave_enum", "interleave " + std::to_string(il_i));
  if (!sw_ok) fail("swizzle_enum", "swizzle " + std::to_string(sw_i));
  if (sw_ok && is_atom(s.swizzle) && cc < 100)
    fail("cc_atom_swizzle",
         std::string("swizzle ") + to_string(s.swizzle) + " on compute capability " + cc_text(cc));
  const int l2 = static_cast<int>(s.l2_promotion), oob = static_cast<int>(s.oob_fill);
  if (l2 < 0 || l2 > 3) fail("l2_promotion_enum", "L2 promotion " + std::to_string(l2));
  if (oob < 0 || oob > 1) fail("oob_fill_enum", "OOB fill " + std::to_string(oob));
  check_address(
      &rep, [](const char* id) -> const TensorMapRule& { return rule(id); }, s.address, s.type,
      s.interleave, s.swizzle);

  // Channels and pixels (rank-independent).
  const int bits = type_ok ? tma_type_bits(s.type) : 8;
  const std::string cpp = "channels_per_pixel = " + u64(s.channels_per_pixel);
  if (s.channels_per_pixel < 1 || s.channels_per_pixel > 256) fail("im2col_channels_range", cpp);
  if (type_ok && is_align16_packed(s.type) && s.channels_per_pixel != 128)
    fail("im2col_channels_packed_128", cpp + " with type " + to_string(s.type));
  const std::uint64_t inner_bytes = static_cast<std::uint64_t>(s.channels_per_pixel) * bits / 8;
  if (il_ok && (static_cast<std::uint64_t>(s.channels_per_pixel) * bits) % 128 != 0)
    fail("im2col_channels_multiple_16", cpp + " of " + std::to_string(bits) + " bits");
  if (s.pixels_per_column < 1 || s.pixels_per_column > 1024)
    fail("im2col_pixels_range", "pixels_per_column = " + u64(s.pixels_per_column));
  if (il_ok && s.interleave == TmaInterleave::kNone && sw_ok && s.swizzle != TmaSwizzle::kNone) {
    const std::uint32_t span = tma_swizzle_span_bytes(sw_i);
    if (inner_bytes > span)
      fail("im2col_swizzle_span", "channels " + u64(inner_bytes) + " bytes with swizzle " +
                                      to_string(s.swizzle) + " (span " + u64(span) + " bytes)");
  }
  if (il_ok && s.interleave != TmaInterleave::kNone)
    fail("im2col_interleave_none", std::string("interleave ") + to_string(s.interleave));
  // (interleave_32_swizzle_32 and packed_u6_interleave_none of the tiled rules are subsumed
  // by im2col_interleave_none.)
  if (type_ok && sw_ok) {
    const TmaSwizzle w = s.swizzle;
    const bool u6_ok = w == TmaSwizzle::kNone || w == TmaSwizzle::k128B ||
                       w == TmaSwizzle::k128BAtom32B || w == TmaSwizzle::k128BAtom64B;
    const bool u4_ok =
        w == TmaSwizzle::kNone || w == TmaSwizzle::k128B || w == TmaSwizzle::k128BAtom32B;
    if ((s.type == TmaType::k16U6Align16B && !u6_ok) ||
        (s.type == TmaType::k16U4Align16B && !u4_ok))
      fail("packed_swizzle_modes",
           std::string("type ") + to_string(s.type) + " with swizzle " + to_string(w));
  }
  if (type_ok && s.oob_fill == TmaOobFill::kNanRequestZeroFma &&
      (!is_float(s.type) || is_packed(s.type)))
    fail("oob_nan_float_only",
         std::string("OOB fill NAN_REQUEST_ZERO_FMA with type ") + to_string(s.type));
  constexpr std::uint64_t kMaxBoxBytes = 233472;
  if (s.channels_per_pixel >= 1 && s.channels_per_pixel <= 256 && s.pixels_per_column >= 1 &&
      s.pixels_per_column <= 1024 && box_bytes(s) > kMaxBoxBytes)
    fail("im2col_box_fits_smem", "one copy of " + u64(box_bytes(s)) + " bytes");

  if (!rank_ok) return rep;  // the per-dimension rules need a rank
  const int rank = s.rank, inner = rank - 1, ns = rank - 2;
  auto dim = [&](const char* field, int i) {
    const char* names[] = {"N", "", "", "", ""};
    std::string n = i == 0 ? names[0] : i == inner ? "C" : spatial(rank, i - 1);
    return std::string(field) + "[" + std::to_string(i) + "] (" + n + ", driver dim " +
           std::to_string(rank - 1 - i) + ")";
  };
  for (int i = 0; i < rank; ++i)
    if (s.shape[i] < 1 || s.shape[i] > (std::uint64_t(1) << 32))
      fail("dim_range", dim("shape", i) + " = " + u64(s.shape[i]));
  if (type_ok && is_align16_packed(s.type) && s.shape[inner] % 128 != 0)
    fail("dim_packed_multiple",
         dim("shape", inner) + " = " + u64(s.shape[inner]) + " with type " + to_string(s.type));
  if (type_ok && s.type == TmaType::k16U4Align8B && s.shape[inner] % 2 != 0)
    fail("dim_packed_multiple",
         dim("shape", inner) + " = " + u64(s.shape[inner]) + " with type " + to_string(s.type));
  const bool needs32 =
      (il_ok && s.interleave == TmaInterleave::k32B) || (type_ok && is_align16_packed(s.type));
  for (int i = 0; i + 1 < rank; ++i) {
    const std::uint64_t p = s.pitch_bytes[i];
    const std::string name = dim("pitch_bytes", i) + " = " + u64(p) + " bytes";
    if (p % 16 != 0)
      fail("stride_multiple_16", name);
    else if (needs32 && p % 32 != 0)
      fail("stride_multiple_32", name);
    if (p >= (std::uint64_t(1) << 40)) fail("stride_max", name);
    const std::uint64_t below =
        (i + 1 == inner) ? s.shape[inner] * bits / 8 : s.pitch_bytes[i + 1] * s.shape[i + 1];
    if (p < below)
      fail("stride_covers_dim",
           name + " < " + u64(below) + " bytes spanned by dim " + std::to_string(i + 1));
  }
  for (int i = 0; i < rank; ++i)
    if (s.elem_strides[i] < 1 || s.elem_strides[i] > 8)
      fail("elem_stride_range", dim("elem_strides", i) + " = " + u64(s.elem_strides[i]));
  if (il_ok && s.interleave == TmaInterleave::kNone && s.elem_strides[inner] >= 1 &&
      s.elem_strides[inner] <= 8 && s.elem_strides[inner] != 1)
    fail("elem_stride_inner_ignored",
         dim("elem_strides", inner) + " = " + u64(s.elem_strides[inner]));
  const int lim = corner_limit(rank);
  for (int d = 0; d < ns; ++d) {
    for (const auto* corner : {&s.lower_corner, &s.upper_corner}) {
      const int v = (*corner)[d];
      if (v < -lim || v > lim - 1)
        fail("im2col_corner_range", std::string(corner == &s.lower_corner ? "lower" : "upper") +
                                        "_corner[" + std::to_string(d) + "] (" + spatial(rank, d) +
                                        ") = " + std::to_string(v) + " for rank " +
                                        std::to_string(rank));
    }
    const long long extent =
        static_cast<long long>(s.shape[1 + d]) + s.upper_corner[d] - s.lower_corner[d];
    if (extent >= (1ll << 31))
      fail("im2col_box_extent_max", spatial(rank, d) + ": shape " + u64(s.shape[1 + d]) +
                                        " + upper " + std::to_string(s.upper_corner[d]) +
                                        " - lower " + std::to_string(s.lower_corner[d]) + " = " +
                                        std::to_string(extent));
    if (extent < 1)
      fail("im2col_box_nonempty", spatial(rank, d) + ": shape " + u64(s.shape[1 + d]) +
                                      " + upper " + std::to_string(s.upper_corner[d]) +
                                      " - lower " + std::to_string(s.lower_corner[d]) + " = " +
                                      std::to_string(extent));
  }
  return rep;
}

std::string describe(const Im2colSpec& s) {
  std::ostringstream o;
  const int rank = s.rank;
  o << "im2col tensor map: " << to_string(s.type) << " (" << tma_type_bits(s.type) << "-bit), rank "
    << rank << ", interleave " << to_string(s.interleave) << ", swizzle " << to_string(s.swizzle)
    << ", OOB fill " << (s.oob_fill == TmaOobFill::kZero ? "zero" : "NaN") << ", address "
    << s.address << "\n";
  if (rank < 3 || rank > 5) return o.str();
  const int ns = rank - 2;
  auto list = [&](auto get, int n, const char* sep) {
    std::string t;
    for (int i = 0; i < n; ++i) t += (i ? sep : "") + std::to_string(get(i));
    return t;
  };
  std::string names = "N";
  for (int d = 0; d < ns; ++d) names += " x " + spatial(rank, d);
  names += " x C";
  o << "  row-major (" << names << "): shape "
    << list([&](int i) { return s.shape[i]; }, rank, " x ") << ", pitches ["
    << list([&](int i) { return s.pitch_bytes[i]; }, rank - 1, ", ")
    << "] bytes, traversal strides " << list([&](int i) { return s.elem_strides[i]; }, rank, " x ")
    << "\n";
  const Im2colDriverOrder d = to_driver_order(s);
  o << "  driver order (C first): globalDim {"
    << list([&](int i) { return d.dims.global_dim[i]; }, rank, ", ") << "}, globalStrides {"
    << list([&](int i) { return d.dims.global_strides[i]; }, rank - 1, ", ")
    << "}, pixelBoxLowerCorner {" << list([&](int i) { return d.lower_corner[i]; }, ns, ", ")
    << "}, pixelBoxUpperCorner {" << list([&](int i) { return d.upper_corner[i]; }, ns, ", ")
    << "} (W first), elementStrides {"
    << list([&](int i) { return d.dims.element_strides[i]; }, rank, ", ") << "}\n";
  const auto px = im2col_box_pixels(s);
  std::uint64_t per_image = 1;
  o << "  bounding box per image:";
  for (int k = 0; k < ns; ++k) {
    const long long hi = static_cast<long long>(s.shape[1 + k]) - 1 + s.upper_corner[k];
    o << (k ? "," : "") << " " << spatial(rank, k) << " " << s.lower_corner[k] << ".." << hi
      << " step " << s.elem_strides[1 + k] << " (" << px[k] << ")";
    per_image *= px[k];
  }
  o << " = " << per_image
    << " pixels; coordinates below the lower corner or past the tensor read as "
    << (s.oob_fill == TmaOobFill::kZero ? "zero" : "NaN") << "\n";
  const std::uint64_t e_bits = static_cast<std::uint64_t>(tma_type_bits(s.type));
  o << "  one copy: " << s.pixels_per_column << " consecutive pixels of the bounding-box walk ("
    << spatial(rank, ns - 1)
    << " fastest, then the outer spatial dims, then N), each at its position + the copy's filter "
       "offsets, channels "
    << "c..c+" << s.channels_per_pixel << "-1 of each\n";
  o << "  delivers " << box_bytes(s)
    << " bytes per copy (the mbarrier's expect-tx, also when pixels are out of bounds): "
    << "shared memory holds a " << s.pixels_per_column << " x " << s.channels_per_pixel
    << " matrix, row p = pixel p, " << s.channels_per_pixel * e_bits / 8 << " bytes a row";
  const std::uint32_t period = tma_swizzle_period_bytes(static_cast<int>(s.swizzle));
  if (period == 0)
    o << ", rows dense; destination 128-byte aligned\n";
  else
    o << ", 16-byte chunks XOR-swizzled (" << to_string(s.swizzle) << ", period " << period
      << " bytes: align the destination to it)\n";
  return o.str();
}

Status encode(const Im2colSpec& spec, CUtensorMap* out) {
  DeviceCaps dev;  // cached per device: query_device() (cudaGetDeviceProperties) took 0.76 ms
  if (Status s = current_device_caps(&dev); !s) return s;
  const ValidationReport rep = validate(spec, dev.cc);
  if (!rep.ok())
    return make_status(StatusCode::kInvalidArgument,
                       "im2col tensor map rejected before calling the driver:\n" + rep.to_string() +
                           describe(spec));
  Status why;
  const CUresult r = encode_im2col_unchecked(spec, out, &why);
  if (!why.ok()) return why;
  if (r != CUDA_SUCCESS)
    return make_status(StatusCode::kCudaError, "cuTensorMapEncodeIm2col returned " +
                                                   curesult_name(r) + " for:\n" + describe(spec));
  return {};
}

namespace {

Status replace_checked(CUtensorMap* map, const void* new_address, TmaType type,
                       TmaInterleave interleave, TmaSwizzle swizzle) {
  if (map == nullptr)
    return make_status(StatusCode::kInvalidArgument, "replace_address: the tensor map is null");
  if (reinterpret_cast<std::uintptr_t>(map) % 64 != 0)
    return make_status(
        StatusCode::kInvalidArgument,
        "replace_address: the tensor map object must be 64-byte aligned (alignas(64) CUtensorMap)");
  ValidationReport rep;
  check_address(
      &rep, [](const char* id) -> const TensorMapRule& { return *find_tensor_map_rule(id); },
      new_address, type, interleave, swizzle);
  if (!rep.ok())
    return make_status(StatusCode::kInvalidArgument,
                       "replace_address: new address rejected:\n" + rep.to_string());
  Status why;
  const CUresult r = replace_address_unchecked(map, new_address, &why);
  if (!why.ok()) return why;
  if (r != CUDA_SUCCESS)
    return make_status(StatusCode::kCudaError,
                       "cuTensorMapReplaceAddress returned " + curesult_name(r));
  return {};
}

}  // namespace

Status replace_address(CUtensorMap* map, const TensorMapSpec& spec, const void* new_address) {
  return replace_checked(map, new_address, spec.type, spec.interleave, spec.swizzle);
}
Status replace_address(CUtensorMap* map, const Im2colSpec& spec, const void* new_address) {
  return replace_checked(map, new_address, spec.type, spec.interleave, spec.swizzle);
}

}  // namespace tmakit
