// TensorMapSpec -> validate -> describe. Every rule is a row of kRules; validate() checks
// them all and reports every violation, so a user fixes a descriptor in one pass.
// Sources: the cuTensorMapEncodeTiled doc comment in CUDA 13.0's cuda.h, the Programming
// Guide's TMA swizzle table, PTX ISA 9.0, and what the H100 driver 580.159 did
// (../shared/TMA.md). Rules the driver does not enforce are warnings (driver_enforced=false).
#include <tmakit/tensor_map.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <host/tensor_map/common.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {
namespace {

using S = RuleSeverity;
using namespace tensor_map_detail;

// clang-format off
const std::vector<TensorMapRule> kRules = {
  {"cc_tensor_map", S::kError, true, "tensor maps need compute capability 9.0 or higher", "cuda.h"},
  {"rank_range", S::kError, true, "rank must be between 1 and 5", "cuda.h"},
  {"data_type_enum", S::kError, true, "data type must be a CUtensorMapDataType value (0..15)", "cuda.h"},
  {"cc_packed_type", S::kError, true, "the packed types 16U4_ALIGN8B, 16U4_ALIGN16B and 16U6_ALIGN16B need compute capability 10.0 (Hopper rejects them)", "PTX"},
  {"interleave_enum", S::kError, true, "interleave must be NONE, 16B or 32B", "cuda.h"},
  {"swizzle_enum", S::kError, true, "swizzle must be a CUtensorMapSwizzle value (0..6)", "cuda.h"},
  {"cc_atom_swizzle", S::kError, true, "the 128B_ATOM_* swizzles need compute capability 10.0 (Hopper rejects them)", "PTX"},
  {"l2_promotion_enum", S::kError, true, "L2 promotion must be NONE, 64B, 128B or 256B", "cuda.h"},
  {"oob_fill_enum", S::kError, true, "OOB fill must be NONE or NAN_REQUEST_ZERO_FMA", "cuda.h"},
  {"rank_interleave", S::kError, true, "with interleave other than NONE, rank must be at least 3", "cuda.h"},
  {"address_null", S::kError, false, "the global address must not be null", "tmakit"},
  {"address_align_16", S::kError, true, "the global address must be 16-byte aligned", "cuda.h"},
  {"address_align_32", S::kError, true, "the global address must be 32-byte aligned with interleave 32B or the 16U4_ALIGN16B / 16U6_ALIGN16B types", "cuda.h"},
  {"address_align_128_swizzle", S::kWarning, false, "with 32B/64B/128B swizzle the Programming Guide asks for a 128-byte aligned global address", "Programming Guide"},
  {"dim_range", S::kError, true, "every dimension must be between 1 and 2^32", "cuda.h"},
  {"dim_packed_multiple", S::kError, true, "the innermost dimension must be a multiple of 128 for 16U4_ALIGN16B / 16U6_ALIGN16B and of 2 for 16U4_ALIGN8B", "cuda.h"},
  {"stride_multiple_16", S::kError, true, "every pitch must be a multiple of 16 bytes", "cuda.h"},
  {"stride_multiple_32", S::kError, true, "every pitch must be a multiple of 32 bytes with interleave 32B or the 16U4_ALIGN16B / 16U6_ALIGN16B types", "cuda.h"},
  {"stride_max", S::kError, true, "every pitch must be less than 2^40 bytes", "cuda.h"},
  {"stride_covers_dim", S::kWarning, false, "a pitch should cover the dimension below it (pitch >= inner extent in bytes); smaller pitches make rows overlap", "cuda.h"},
  {"box_range", S::kError, true, "every box extent must be between 1 and 256", "cuda.h"},
  {"box_inner_multiple_16", S::kError, true, "the inner box (box extent x element size) must be a multiple of 16 bytes (cuda.h says so for interleave NONE; the H100 driver enforces it for 16B and 32B interleave too)", "cuda.h + H100 driver"},
  {"box_packed_128", S::kError, true, "the inner box must be 128 for 16U4_ALIGN16B / 16U6_ALIGN16B", "cuda.h"},
  {"elem_stride_range", S::kError, true, "every element stride must be between 1 and 8", "cuda.h"},
  {"elem_stride_inner_ignored", S::kWarning, false, "with interleave NONE the innermost element stride is ignored; keep it 1", "cuda.h"},
  {"swizzle_span", S::kError, true, "with interleave NONE and a swizzle, the inner box must be at most the swizzle span (32, 64 or 128 bytes)", "cuda.h"},
  {"interleave_32_swizzle_32", S::kWarning, false, "with interleave 32B the swizzle must be 32B", "cuda.h"},
  {"packed_u6_interleave_none", S::kError, true, "16U6_ALIGN16B needs interleave NONE", "cuda.h"},
  {"packed_swizzle_modes", S::kError, true, "16U6_ALIGN16B allows swizzle NONE, 128B, 128B_ATOM_32B, 128B_ATOM_64B (store only); 16U4_ALIGN16B allows NONE, 128B, 128B_ATOM_32B (load only)", "cuda.h"},
  {"oob_nan_float_only", S::kError, true, "OOB fill NAN_REQUEST_ZERO_FMA needs a floating-point, non-packed type", "cuda.h"},
  {"box_fits_smem", S::kError, false, "the box must fit in shared memory: at most 233,472 bytes delivered per copy on sm_90 (the H100 driver rejected 245,760 and accepted 233,472; it also accepted some multi-gigabyte boxes whose size arithmetic wraps, which tmakit rejects; an mbarrier phase could track at most 1,048,575 bytes anyway)", "tmakit (H100 driver)"},
};
// clang-format on

const TensorMapRule& rule(const char* id) {
  for (const TensorMapRule& r : kRules)
    if (std::string(r.id) == id) return r;
  std::fprintf(stderr, "tmakit: internal error: unknown tensor-map rule %s\n", id);
  std::abort();
}

// "box[1] (driver dim 0, innermost)": a row-major index and its driver index.
std::string dim_name(const char* field, int i, int rank) {
  return std::string(field) + "[" + std::to_string(i) + "] (driver dim " + std::to_string(rank - 1 - i) +
         (i == rank - 1 ? ", innermost)" : ")");
}

class Checker {
 public:
  explicit Checker(ValidationReport* r) : r_(r) {}
  void fail(const char* id, const std::string& what) { add_violation(r_, rule(id), what); }

 private:
  ValidationReport* r_;
};

}  // namespace

const std::vector<TensorMapRule>& tensor_map_rules() { return kRules; }

const TensorMapRule* find_tensor_map_rule(const std::string& id) {
  for (const TensorMapRule& r : kRules)
    if (id == r.id) return &r;
  return nullptr;
}

int tma_type_bits(TmaType type) {
  switch (type) {
    case TmaType::kU8: return 8;
    case TmaType::kU16: case TmaType::kF16: case TmaType::kBF16: return 16;
    case TmaType::kU32: case TmaType::kI32: case TmaType::kF32: case TmaType::kF32Ftz:
    case TmaType::kTF32: case TmaType::kTF32Ftz: return 32;
    case TmaType::kU64: case TmaType::kI64: case TmaType::kF64: return 64;
    case TmaType::k16U4Align8B: return 4;                              // 16 values in 8 bytes
    case TmaType::k16U4Align16B: case TmaType::k16U6Align16B: return 8;  // 16 values in 16 bytes
  }
  return 0;
}

const char* to_string(TmaType t) {
  static const char* names[] = {"UINT8", "UINT16", "UINT32", "INT32", "UINT64", "INT64",
                                "FLOAT16", "FLOAT32", "FLOAT64", "BFLOAT16", "FLOAT32_FTZ",
                                "TFLOAT32", "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B",
                                "16U6_ALIGN16B"};
  const int i = static_cast<int>(t);
  return i >= 0 && i < 16 ? names[i] : "INVALID";
}
const char* to_string(TmaSwizzle s) {
  static const char* names[] = {"NONE", "32B", "64B", "128B", "128B_ATOM_32B",
                                "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B"};
  const int i = static_cast<int>(s);
  return i >= 0 && i < 7 ? names[i] : "INVALID";
}
const char* to_string(TmaInterleave v) {
  static const char* names[] = {"NONE", "16B", "32B"};
  const int i = static_cast<int>(v);
  return i >= 0 && i < 3 ? names[i] : "INVALID";
}

TensorMapSpec matrix_spec(TmaType type, const void* address, std::uint64_t rows,
                          std::uint64_t cols, std::uint64_t row_pitch_bytes,
                          std::uint32_t box_rows, std::uint32_t box_cols, TmaSwizzle swizzle) {
  TensorMapSpec s;
  s.type = type;
  s.rank = 2;
  s.address = address;
  s.shape = {rows, cols, 0, 0, 0};
  s.pitch_bytes = {row_pitch_bytes, 0, 0, 0, 0};
  s.box = {box_rows, box_cols, 0, 0, 0};
  s.swizzle = swizzle;
  return s;
}

// The one place where row-major (outermost first) becomes the driver's innermost-first order:
// driver dim d is row-major dim rank-1-d; driver stride j (for driver dim j+1) is the pitch of
// row-major dim rank-2-j.
DriverOrder to_driver_order(const TensorMapSpec& spec) {
  DriverOrder d;
  const int rank = spec.rank < 0 ? 0 : spec.rank > kTmaMaxRank ? kTmaMaxRank : spec.rank;
  d.rank = static_cast<std::uint32_t>(rank);
  for (int i = 0; i < rank; ++i) {
    d.global_dim[i] = spec.shape[rank - 1 - i];
    d.box_dim[i] = spec.box[rank - 1 - i];
    d.element_strides[i] = spec.elem_strides[rank - 1 - i];
  }
  for (int j = 0; j + 1 < rank; ++j) d.global_strides[j] = spec.pitch_bytes[rank - 2 - j];
  return d;
}

std::uint64_t box_bytes(const TensorMapSpec& spec) {
  const int rank = spec.rank < 1 ? 0 : spec.rank > kTmaMaxRank ? kTmaMaxRank : spec.rank;
  if (rank == 0) return 0;
  std::uint64_t elems = 1;
  for (int i = 0; i < rank; ++i) {
    const std::uint32_t es = spec.elem_strides[i] == 0 ? 1 : spec.elem_strides[i];
    // With interleave NONE the innermost element stride is ignored by TMA.
    const bool ignored = i == rank - 1 && spec.interleave == TmaInterleave::kNone;
    elems *= ignored ? spec.box[i] : (spec.box[i] + es - 1) / es;
  }
  return elems * static_cast<std::uint64_t>(tma_type_bits(spec.type)) / 8;
}

ValidationReport validate(const TensorMapSpec& s, int cc) {
  ValidationReport rep;
  Checker c(&rep);
  const int type_i = static_cast<int>(s.type), il_i = static_cast<int>(s.interleave),
            sw_i = static_cast<int>(s.swizzle);
  const bool type_ok = type_i >= 0 && type_i <= 15;
  const bool il_ok = il_i >= 0 && il_i <= 2;
  const bool sw_ok = sw_i >= 0 && sw_i <= 6;

  if (cc < 90)
    c.fail("cc_tensor_map", "device compute capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10));
  const bool rank_ok = s.rank >= 1 && s.rank <= kTmaMaxRank;
  if (!rank_ok) c.fail("rank_range", "rank " + std::to_string(s.rank));
  if (!type_ok) c.fail("data_type_enum", "type " + std::to_string(type_i));
  if (type_ok && is_packed(s.type) && cc < 100)
    c.fail("cc_packed_type", std::string("type ") + to_string(s.type) + " on compute capability " +
                                 std::to_string(cc / 10) + "." + std::to_string(cc % 10));
  if (!il_ok) c.fail("interleave_enum", "interleave " + std::to_string(il_i));
  if (!sw_ok) c.fail("swizzle_enum", "swizzle " + std::to_string(sw_i));
  if (sw_ok && is_atom(s.swizzle) && cc < 100)
    c.fail("cc_atom_swizzle", std::string("swizzle ") + to_string(s.swizzle) + " on compute capability " +
                                  std::to_string(cc / 10) + "." + std::to_string(cc % 10));
  const int l2 = static_cast<int>(s.l2_promotion), oob = static_cast<int>(s.oob_fill);
  if (l2 < 0 || l2 > 3) c.fail("l2_promotion_enum", "L2 promotion " + std::to_string(l2));
  if (oob < 0 || oob > 1) c.fail("oob_fill_enum", "OOB fill " + std::to_string(oob));
  if (rank_ok && il_ok && s.interleave != TmaInterleave::kNone && s.rank < 3)
    c.fail("rank_interleave", std::string("rank ") + std::to_string(s.rank) + " with interleave " + to_string(s.interleave));

  // Address.
  const bool needs32 = (il_ok && s.interleave == TmaInterleave::k32B) || (type_ok && is_align16_packed(s.type));
  check_address(&rep, [](const char* id) -> const TensorMapRule& { return rule(id); }, s.address, s.type,
                s.interleave, s.swizzle);

  if (!rank_ok) return rep;  // the per-dimension rules need a rank
  const int rank = s.rank, inner = rank - 1;
  const int bits = type_ok ? tma_type_bits(s.type) : 8;

  // Dimensions.
  for (int i = 0; i < rank; ++i)
    if (s.shape[i] < 1 || s.shape[i] > (std::uint64_t(1) << 32))
      c.fail("dim_range", dim_name("shape", i, rank) + " = " + u64(s.shape[i]));
  if (type_ok && is_align16_packed(s.type) && s.shape[inner] % 128 != 0)
    c.fail("dim_packed_multiple", dim_name("shape", inner, rank) + " = " + u64(s.shape[inner]) + " with type " + to_string(s.type));
  if (type_ok && s.type == TmaType::k16U4Align8B && s.shape[inner] % 2 != 0)
    c.fail("dim_packed_multiple", dim_name("shape", inner, rank) + " = " + u64(s.shape[inner]) + " with type " + to_string(s.type));

  // Pitches: pitch_bytes[i] for row-major dims 0..rank-2.
  for (int i = 0; i + 1 < rank; ++i) {
    const std::uint64_t p = s.pitch_bytes[i];
    const std::string name = "pitch_bytes[" + std::to_string(i) + "] (row pitch of dim " + std::to_string(i) +
                             ", driver globalStrides[" + std::to_string(rank - 2 - i) + "]) = " + u64(p) + " bytes";
    if (p % 16 != 0) c.fail("stride_multiple_16", name);
    else if (needs32 && p % 32 != 0) c.fail("stride_multiple_32", name);
    if (p >= (std::uint64_t(1) << 40)) c.fail("stride_max", name);
    // What the pitch must span: the dense inner row, or the next-inner dim's pitch x extent.
    const std::uint64_t below = (i + 1 == inner) ? s.shape[inner] * bits / 8 : s.pitch_bytes[i + 1] * s.shape[i + 1];
    if (p < below) c.fail("stride_covers_dim", name + " < " + u64(below) + " bytes spanned by dim " + std::to_string(i + 1));
  }

  // Box.
  for (int i = 0; i < rank; ++i)
    if (s.box[i] < 1 || s.box[i] > 256) c.fail("box_range", dim_name("box", i, rank) + " = " + u64(s.box[i]));
  const std::uint64_t inner_box_bytes = static_cast<std::uint64_t>(s.box[inner]) * bits / 8;
  const bool il_none = il_ok && s.interleave == TmaInterleave::kNone;
  if (il_ok && (static_cast<std::uint64_t>(s.box[inner]) * bits) % 128 != 0)
    c.fail("box_inner_multiple_16", dim_name("box", inner, rank) + " = " + u64(s.box[inner]) + " elements of " +
                                        std::to_string(bits) + " bits");
  if (type_ok && is_align16_packed(s.type) && s.box[inner] != 128)
    c.fail("box_packed_128", dim_name("box", inner, rank) + " = " + u64(s.box[inner]) + " with type " + to_string(s.type));

  // Element strides.
  for (int i = 0; i < rank; ++i)
    if (s.elem_strides[i] < 1 || s.elem_strides[i] > 8)
      c.fail("elem_stride_range", dim_name("elem_strides", i, rank) + " = " + u64(s.elem_strides[i]));
  if (il_none && s.elem_strides[inner] >= 1 && s.elem_strides[inner] <= 8 && s.elem_strides[inner] != 1)
    c.fail("elem_stride_inner_ignored", dim_name("elem_strides", inner, rank) + " = " + u64(s.elem_strides[inner]));

  // Swizzle and interleave.
  if (il_none && sw_ok && s.swizzle != TmaSwizzle::kNone) {
    const std::uint32_t span = tma_swizzle_span_bytes(sw_i);
    if (inner_box_bytes > span)
      c.fail("swizzle_span", "inner box " + u64(inner_box_bytes) + " bytes with swizzle " + to_string(s.swizzle) +
                                 " (span " + u64(span) + " bytes)");
  }
  if (il_ok && sw_ok && s.interleave == TmaInterleave::k32B && s.swizzle != TmaSwizzle::k32B)
    c.fail("interleave_32_swizzle_32", std::string("interleave 32B with swizzle ") + to_string(s.swizzle));
  if (type_ok && il_ok && s.type == TmaType::k16U6Align16B && s.interleave != TmaInterleave::kNone)
    c.fail("packed_u6_interleave_none", std::string("type 16U6_ALIGN16B with interleave ") + to_string(s.interleave));
  if (type_ok && sw_ok) {
    const TmaSwizzle w = s.swizzle;
    const bool u6_ok = w == TmaSwizzle::kNone || w == TmaSwizzle::k128B || w == TmaSwizzle::k128BAtom32B || w == TmaSwizzle::k128BAtom64B;
    const bool u4_ok = w == TmaSwizzle::kNone || w == TmaSwizzle::k128B || w == TmaSwizzle::k128BAtom32B;
    if ((s.type == TmaType::k16U6Align16B && !u6_ok) || (s.type == TmaType::k16U4Align16B && !u4_ok))
      c.fail("packed_swizzle_modes", std::string("type ") + to_string(s.type) + " with swizzle " + to_string(w));
  }
  if (type_ok && s.oob_fill == TmaOobFill::kNanRequestZeroFma && (!is_float(s.type) || is_packed(s.type)))
    c.fail("oob_nan_float_only", std::string("OOB fill NAN_REQUEST_ZERO_FMA with type ") + to_string(s.type));

  bool box_valid = true;
  for (int i = 0; i < rank; ++i) box_valid = box_valid && s.box[i] >= 1 && s.box[i] <= 256;
  constexpr std::uint64_t kMaxBoxBytes = 233472;  // sharedMemPerMultiprocessor on sm_90
  if (box_valid && box_bytes(s) > kMaxBoxBytes)
    c.fail("box_fits_smem", "box of " + u64(box_bytes(s)) + " bytes per copy");
  return rep;
}

bool ValidationReport::has(const std::string& id) const {
  for (const auto* list : {&errors, &warnings})
    for (const RuleViolation& v : *list)
      if (id == v.rule->id) return true;
  return false;
}

std::string ValidationReport::to_string() const {
  std::string out;
  for (const RuleViolation& v : errors) out += "error: " + v.message + "\n";
  for (const RuleViolation& v : warnings) out += "warning: " + v.message + "\n";
  return out;
}

std::string describe(const TensorMapSpec& s) {
  std::ostringstream o;
  const int rank = s.rank;
  const bool rank_ok = rank >= 1 && rank <= kTmaMaxRank;
  o << "tensor map: " << to_string(s.type) << " (" << tma_type_bits(s.type) << "-bit), rank " << rank
    << ", interleave " << to_string(s.interleave) << ", swizzle " << to_string(s.swizzle) << ", L2 promotion "
    << (static_cast<int>(s.l2_promotion) == 0 ? std::string("NONE") : std::to_string(32 << static_cast<int>(s.l2_promotion)) + "B")
    << ", OOB fill " << (s.oob_fill == TmaOobFill::kZero ? "zero" : "NaN") << ", address " << s.address << "\n";
  if (!rank_ok) return o.str();
  auto list = [&](auto get, int n, const char* sep) {
    std::string t;
    for (int i = 0; i < n; ++i) t += (i ? sep : "") + std::to_string(get(i));
    return t;
  };
  o << "  row-major (outermost first): shape " << list([&](int i) { return s.shape[i]; }, rank, " x ")
    << ", pitches [" << list([&](int i) { return s.pitch_bytes[i]; }, rank - 1, ", ") << "] bytes, box "
    << list([&](int i) { return s.box[i]; }, rank, " x ") << ", element strides "
    << list([&](int i) { return s.elem_strides[i]; }, rank, " x ") << "\n";
  const DriverOrder d = to_driver_order(s);
  o << "  driver order (innermost first): globalDim {" << list([&](int i) { return d.global_dim[i]; }, rank, ", ")
    << "}, globalStrides {" << list([&](int i) { return d.global_strides[i]; }, rank - 1, ", ") << "}, boxDim {"
    << list([&](int i) { return d.box_dim[i]; }, rank, ", ") << "}, elementStrides {"
    << list([&](int i) { return d.element_strides[i]; }, rank, ", ") << "}\n";
  const std::uint64_t inner_bytes = static_cast<std::uint64_t>(s.box[rank - 1]) * tma_type_bits(s.type) / 8;
  o << "  box: " << box_bytes(s) << " bytes per copy: what the mbarrier must expect for every copy, "
    << "also when the box is partly or wholly out of bounds; inner box row " << inner_bytes << " bytes\n";
  const int sw = static_cast<int>(s.swizzle);
  const std::uint32_t period = tma_swizzle_period_bytes(sw);
  if (period == 0)
    o << "  shared memory: no swizzle; destination must be 128-byte aligned; rows land densely, "
      << inner_bytes << " bytes apart\n";
  else
    o << "  shared memory: swizzle " << to_string(s.swizzle) << " XORs the 16-byte chunk index (address bits 6:4) with "
      << "address bits " << (sw == 1 ? "7" : sw == 2 ? "8:7" : "9:7") << " of the absolute shared address; pattern repeats every "
      << period << " bytes; align the destination to " << period
      << " bytes so buffer offsets equal absolute ones (hardware minimum 128)\n";
  return o.str();
}

}  // namespace tmakit
