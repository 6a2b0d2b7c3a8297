// Helpers shared by the tiled and im2col rule sets (host/tensor_map/tiled.cpp, im2col.cpp).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <tmakit/tensor_map.hpp>

namespace tmakit::tensor_map_detail {

inline bool is_packed(TmaType t) {
  return t == TmaType::k16U4Align8B || t == TmaType::k16U4Align16B || t == TmaType::k16U6Align16B;
}
inline bool is_align16_packed(TmaType t) {
  return t == TmaType::k16U4Align16B || t == TmaType::k16U6Align16B;
}
inline bool is_float(TmaType t) {
  switch (t) {
    case TmaType::kF16:
    case TmaType::kF32:
    case TmaType::kF64:
    case TmaType::kBF16:
    case TmaType::kF32Ftz:
    case TmaType::kTF32:
    case TmaType::kTF32Ftz:
      return true;
    default:
      return false;
  }
}
inline bool is_atom(TmaSwizzle s) {
  return s == TmaSwizzle::k128BAtom32B || s == TmaSwizzle::k128BAtom32BFlip8B ||
         s == TmaSwizzle::k128BAtom64B;
}
inline std::string u64(std::uint64_t v) {
  return std::to_string(v);
}
inline std::string cc_text(int cc) {
  return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

// Appends a violation of rule `r` to the report (errors or warnings by its severity).
inline void add_violation(ValidationReport* rep, const TensorMapRule& r, const std::string& what) {
  RuleViolation v{&r, what + ": " + r.text + " [" + r.id + "]"};
  (r.severity == RuleSeverity::kError ? rep->errors : rep->warnings).push_back(std::move(v));
}

// The address rules of an encode (and of cuTensorMapReplaceAddress): not null, 16-byte
// aligned, 32 with interleave 32B or an ALIGN16B packed type; 128 recommended with a swizzle.
// `find` maps a rule id to its row in the caller's table.
template <class Find>
void check_address(ValidationReport* rep, Find&& find, const void* address, TmaType type,
                   TmaInterleave interleave, TmaSwizzle swizzle) {
  const int type_i = static_cast<int>(type), il_i = static_cast<int>(interleave),
            sw_i = static_cast<int>(swizzle);
  const bool needs32 = (il_i == 2) || (type_i >= 0 && type_i <= 15 && is_align16_packed(type));
  const auto addr = reinterpret_cast<std::uintptr_t>(address);
  char abuf[40];
  std::snprintf(abuf, sizeof abuf, "global address %p", address);
  if (address == nullptr)
    add_violation(rep, find("address_null"), abuf);
  else if (addr % 16 != 0)
    add_violation(rep, find("address_align_16"),
                  std::string(abuf) + " (" + u64(addr % 16) + " bytes past a 16-byte boundary)");
  else if (needs32 && addr % 32 != 0)
    add_violation(rep, find("address_align_32"), abuf);
  else if (sw_i >= 1 && sw_i <= 6 && addr % 128 != 0)
    add_violation(rep, find("address_align_128_swizzle"),
                  std::string(abuf) + " with swizzle " + to_string(swizzle));
}

}  // namespace tmakit::tensor_map_detail
