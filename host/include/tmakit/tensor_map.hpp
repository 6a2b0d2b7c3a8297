// Tensor-map (CUtensorMap) setup in the user's terms: describe a row-major tensor, validate it
// against every rule cuTensorMapEncodeTiled documents (all violations at once, each naming the
// field, its value and the rule), encode it through the driver entry point (no libcuda link),
// and explain the result in words. Host compiler only.
//
// Orders: TensorMapSpec is ROW-MAJOR, outermost dimension first (shape {rows, cols} for a
// matrix). The driver wants the innermost dimension first. The reversal happens in one place:
// to_driver_order().
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include <cuda.h>
#include <tmakit/tmakit.hpp>

namespace tmakit {

// Values equal the driver's enums (CUtensorMapDataType etc.), so a cast is the conversion.
enum class TmaType : int {
  kU8 = 0, kU16, kU32, kI32, kU64, kI64, kF16, kF32, kF64, kBF16, kF32Ftz, kTF32, kTF32Ftz,
  k16U4Align8B, k16U4Align16B, k16U6Align16B,
};
enum class TmaInterleave : int { kNone = 0, k16B, k32B };
enum class TmaSwizzle : int {
  kNone = 0, k32B, k64B, k128B, k128BAtom32B, k128BAtom32BFlip8B, k128BAtom64B,
};
enum class TmaL2Promotion : int { kNone = 0, k64B, k128B, k256B };
enum class TmaOobFill : int { kZero = 0, kNanRequestZeroFma };

inline constexpr int kTmaMaxRank = 5;

struct TensorMapSpec {
  TmaType type = TmaType::kF32;
  int rank = 2;
  // Row-major, outermost first; only the first `rank` entries are used.
  std::array<std::uint64_t, kTmaMaxRank> shape{};        // elements per dimension
  std::array<std::uint64_t, kTmaMaxRank> pitch_bytes{};  // byte stride of dims 0..rank-2 (the
                                                         // innermost dim has none: it is dense)
  std::array<std::uint32_t, kTmaMaxRank> box{};          // box (tile) extent per dimension
  std::array<std::uint32_t, kTmaMaxRank> elem_strides{1, 1, 1, 1, 1};
  TmaInterleave interleave = TmaInterleave::kNone;
  TmaSwizzle swizzle = TmaSwizzle::kNone;
  TmaL2Promotion l2_promotion = TmaL2Promotion::kNone;
  TmaOobFill oob_fill = TmaOobFill::kZero;
  const void* address = nullptr;
};

// A row-major matrix of `rows x cols` elements, `row_pitch_bytes` apart, read in boxes of
// `box_rows x box_cols`.
TensorMapSpec matrix_spec(TmaType type, const void* address, std::uint64_t rows,
                          std::uint64_t cols, std::uint64_t row_pitch_bytes,
                          std::uint32_t box_rows, std::uint32_t box_cols,
                          TmaSwizzle swizzle = TmaSwizzle::kNone);

// The driver's arguments, innermost dimension first.
struct DriverOrder {
  std::uint32_t rank = 0;
  std::array<cuuint64_t, kTmaMaxRank> global_dim{};
  std::array<cuuint64_t, kTmaMaxRank> global_strides{};  // rank-1 entries, bytes
  std::array<cuuint32_t, kTmaMaxRank> box_dim{};
  std::array<cuuint32_t, kTmaMaxRank> element_strides{};
};
DriverOrder to_driver_order(const TensorMapSpec& spec);

// ---- Rules ------------------------------------------------------------------------------------
enum class RuleSeverity { kError, kWarning };

struct TensorMapRule {
  const char* id;           // e.g. "stride_multiple_16"
  RuleSeverity severity;
  bool driver_enforced;     // false: documented (or tmakit's own) but the H100 driver accepted it
  const char* text;         // the rule, in words
  const char* source;       // where it comes from: "cuda.h", "Programming Guide", "PTX", "tmakit"
};

// Every rule validate() checks, in the order it checks them.
const std::vector<TensorMapRule>& tensor_map_rules();
const TensorMapRule* find_tensor_map_rule(const std::string& id);

struct RuleViolation {
  const TensorMapRule* rule = nullptr;
  std::string message;  // names the field, its value and the rule
};

struct ValidationReport {
  std::vector<RuleViolation> errors;
  std::vector<RuleViolation> warnings;
  bool ok() const { return errors.empty(); }
  bool has(const std::string& rule_id) const;  // an error or warning of that rule
  std::string to_string() const;               // one line per violation
};

// Every violated rule at once. cc = compute capability (major*10 + minor) of the device the
// map is for (tensor maps need 9.0; some swizzles and types need 10.0).
ValidationReport validate(const TensorMapSpec& spec, int cc);

// Element size in bits as laid out in memory (packed types: 4 or 8 bits per value incl. gaps).
int tma_type_bits(TmaType type);
const char* to_string(TmaType type);
const char* to_string(TmaSwizzle swizzle);
const char* to_string(TmaInterleave interleave);

// ---- Encode and describe ----------------------------------------------------------------------
// Validates for the current device, then calls cuTensorMapEncodeTiled through
// cudaGetDriverEntryPointByVersion(..., 12000, ...). On a driver error the message holds the
// CUresult name and describe(spec). No driver: kNoDevice with a clear message.
Status encode(const TensorMapSpec& spec, CUtensorMap* out);

// The descriptor in words: both orders, box bytes (= mbarrier expect-tx per copy), the shared
// memory alignment the swizzle needs and its repeat period.
std::string describe(const TensorMapSpec& spec);

// Bytes one copy of the box delivers: prod(ceil(box[i] / elem_strides[i])) * element size. An
// mbarrier must expect exactly this, whether or not the box is in bounds.
std::uint64_t box_bytes(const TensorMapSpec& spec);

// ---- Im2col mode (cuTensorMapEncodeIm2col) ------------------------------------------------------
// A channels-last activation tensor, ROW-MAJOR like TensorMapSpec: rank 3 = N x W x C, rank 4 =
// N x H x W x C, rank 5 = N x D x H x W x C (channels innermost, dense). One copy gathers
// `pixels_per_column` pixels x `channels_per_pixel` channels: the pixels walk the bounding box
// of each image (W fastest, then H, D, N), each displaced by the filter offsets the copy
// instruction passes, and land in shared memory as a pixels x channels matrix. The bounding box
// of spatial dimension d spans [lower_corner[d], shape[d] - 1 + upper_corner[d]]; for a
// convolution with padding p, filter extent k and dilation q: lower = -p,
// upper = p - (k - 1) * q. Traversal strides (the convolution stride) are elem_strides of the
// spatial dimensions.
struct Im2colSpec {
  TmaType type = TmaType::kF32;
  int rank = 4;
  std::array<std::uint64_t, kTmaMaxRank> shape{};        // N, [D,] [H,] W, C
  std::array<std::uint64_t, kTmaMaxRank> pitch_bytes{};  // byte stride of dims 0..rank-2
  std::array<int, 3> lower_corner{};  // spatial dims in row-major order ([D,] [H,] W): rank-2 used
  std::array<int, 3> upper_corner{};
  std::uint32_t channels_per_pixel = 0;
  std::uint32_t pixels_per_column = 0;
  std::array<std::uint32_t, kTmaMaxRank> elem_strides{1, 1, 1, 1, 1};  // row-major
  TmaInterleave interleave = TmaInterleave::kNone;
  TmaSwizzle swizzle = TmaSwizzle::kNone;
  TmaL2Promotion l2_promotion = TmaL2Promotion::kNone;
  TmaOobFill oob_fill = TmaOobFill::kZero;
  const void* address = nullptr;
};

// A dense N x H x W x C tensor (rank 4) for a 2-D convolution: filter r x s, padding pad_h /
// pad_w, stride 1, dilation 1; pixels_per_column pixels of channels_per_pixel channels a copy.
Im2colSpec conv2d_im2col_spec(TmaType type, const void* address, std::uint64_t n, std::uint64_t h,
                              std::uint64_t w, std::uint64_t c, int r, int s, int pad_h, int pad_w,
                              std::uint32_t channels_per_pixel, std::uint32_t pixels_per_column);

// The driver's arguments, innermost dimension first (C, W, H, D, N; corners W, H, D).
struct Im2colDriverOrder {
  DriverOrder dims;  // global_dim, global_strides, element_strides (box_dim unused)
  std::array<int, 3> lower_corner{}, upper_corner{};
};
Im2colDriverOrder to_driver_order(const Im2colSpec& spec);

// Every rule validate(Im2colSpec) checks (shared rules keep the tiled ids).
const std::vector<TensorMapRule>& im2col_rules();
ValidationReport validate(const Im2colSpec& spec, int cc);
// Validates for the current device, then cuTensorMapEncodeIm2col through the entry point.
Status encode(const Im2colSpec& spec, CUtensorMap* out);
std::string describe(const Im2colSpec& spec);
// Bytes one copy delivers (the mbarrier's expect-tx): pixels_per_column x channels_per_pixel x
// element size, whatever the bounds.
std::uint64_t box_bytes(const Im2colSpec& spec);
// Pixels of one image's bounding box along each spatial dimension (row-major), with the
// traversal strides: ceil((shape + upper - lower) / stride); 0 where the box is empty.
std::array<std::uint64_t, 3> im2col_box_pixels(const Im2colSpec& spec);

// ---- Address replacement (cuTensorMapReplaceAddress) -------------------------------------------
// Points an encoded map (tiled or im2col) at new_address, keeping everything else. The rules
// are those of the encode: 16-byte alignment, 32 bytes for maps with interleave 32B or the
// ALIGN16B packed types, and not null; tmakit checks them against `spec` (what the map was
// encoded from) before calling the driver. `map` must be 64-byte aligned (the driver's rule for
// every tensor-map call).
Status replace_address(CUtensorMap* map, const TensorMapSpec& spec, const void* new_address);
Status replace_address(CUtensorMap* map, const Im2colSpec& spec, const void* new_address);

}  // namespace tmakit
