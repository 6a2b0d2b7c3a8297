#include <fstream>
#include <set>
#include <string>
#include <gtest/gtest.h>
#include <host/transpose/registry.hpp>
#include <kernels/common/elem.hpp>
#include <tmakit/permute.hpp>
#include <kernels/common/grid.hpp>
#include <kernels/common/smem_layouts.hpp>

namespace tmakit {
namespace {

bool file_exists(const std::string& path) {
  return std::ifstream(path).good();
}

// One token per technique: unique, a launcher, a description, and a kernel file of that name.
TEST(Registry, EveryRowIsCompleteAndNamedAfterItsFile) {
  std::set<std::string> seen;
  ASSERT_FALSE(registry().empty());
  for (const VariantDef& d : registry()) {
    const VariantInfo& v = d.info;
    SCOPED_TRACE(v.token);
    EXPECT_TRUE(seen.insert(v.token).second) << "duplicate token";
    EXPECT_NE(v.token, "auto");
    EXPECT_NE(d.launch, nullptr);
    EXPECT_FALSE(v.description.empty());
    EXPECT_NE(v.elem_bytes_mask, 0u);
    EXPECT_GE(v.min_cc, 75);
    EXPECT_EQ(v.uses_tma, v.min_cc >= 90) << "TMA techniques need sm_90 and only they do";
    EXPECT_EQ(v.may_fall_back, d.plan != nullptr) << "a planned technique is checked per call";
    if (v.uses_tma) EXPECT_TRUE(v.may_fall_back) << "every TMA technique can fall back";
    if (v.shape_limited) EXPECT_TRUE(v.may_fall_back) << "a shape rule is checked by its planner";
    int files = 0;
    for (const char* family : {"/kernels/classic/", "/kernels/async/", "/kernels/tma/"})
      files += file_exists(std::string(TMAKIT_SOURCE_DIR) + family + v.token + ".cu") ? 1 : 0;
    EXPECT_EQ(files, 1) << "want exactly one kernels/<family>/" << v.token << ".cu";
  }
}

// The permutation registry (host/permute/permute.cpp): the same rules, its own kernels/permute/
// family, tokens no transpose technique has.
TEST(Registry, PermutationTechniquesOneFileOneRowEach) {
  std::set<std::string> seen;
  ASSERT_EQ(permute_variants().size(), 3u);
  for (const VariantInfo& v : permute_variants()) {
    SCOPED_TRACE(v.token);
    EXPECT_TRUE(seen.insert(v.token).second) << "duplicate token";
    EXPECT_EQ(find_variant(v.token), nullptr) << "a transpose technique has the same token";
    EXPECT_EQ(find_permute_variant(v.token), &v);
    EXPECT_EQ(v.kind, VariantKind::kPermute);
    EXPECT_FALSE(v.description.empty());
    EXPECT_EQ(v.uses_tma, v.min_cc >= 90);
    if (v.uses_tma) EXPECT_TRUE(v.may_fall_back);
    if (v.token == "permute_transpose") continue;  // its kernels: transpose techniques (below)
    EXPECT_TRUE(
        file_exists(std::string(TMAKIT_SOURCE_DIR) + "/kernels/permute/" + v.token + ".cu"));
  }
  // permute_transpose runs the transpose techniques that take a batch of several dimensions.
  int batch3 = 0;
  for (const VariantInfo& v : variants()) batch3 += v.batch_dims >= 3 ? 1 : 0;
  EXPECT_GE(batch3, 1);
  EXPECT_NE(find_permute_variant("permute_tma"), nullptr);
  EXPECT_NE(find_permute_variant("permute_tile"), nullptr);
  EXPECT_NE(find_permute_variant("permute_transpose"), nullptr);
  EXPECT_EQ(find_permute_variant("auto"), nullptr);
}

TEST(Registry, PublicViewMatchesAndLooksUpByToken) {
  ASSERT_EQ(variants().size(), registry().size());
  for (std::size_t i = 0; i < variants().size(); ++i) {
    EXPECT_EQ(variants()[i].token, registry()[i].info.token);
    EXPECT_EQ(find_variant(variants()[i].token), &variants()[i]);
  }
  EXPECT_EQ(find_variant("no_such_variant"), nullptr);
  EXPECT_EQ(find_variant("auto"), nullptr);
}

// Every technique takes leading dimensions and batch strides (`copy` used to be
// dense-only, so strided tma_copy calls that TMA could not take had no fallback).
TEST(Registry, EveryTechniqueTakesStridedOperands) {
  for (const VariantInfo& v : variants()) EXPECT_TRUE(v.strided) << v.token;
}

TEST(Registry, TheClassicLadderIsThere) {
  for (const char* t : {"naive_read", "naive_write", "smem", "smem_padded", "smem_xor",
                        "vec_padded", "vec_swizzled", "copy"}) {
    const VariantInfo* v = find_variant(t);
    ASSERT_NE(v, nullptr) << t;
    for (int e : {1, 2, 4, 8}) EXPECT_TRUE(v->supports_elem_bytes(e)) << t << " " << e;
    EXPECT_FALSE(v->supports_elem_bytes(3));
    EXPECT_FALSE(v->supports_elem_bytes(0));
  }
  EXPECT_EQ(find_variant("copy")->kind, VariantKind::kCopy);
}

TEST(ElemBits, MaskBitsAreTheSizes) {
  EXPECT_EQ(elem_bit(1), 1u);
  EXPECT_EQ(elem_bit(8), 8u);
  EXPECT_EQ(elem_bit(16), 16u);
  EXPECT_EQ(elem_bit(3), 0u);
  EXPECT_EQ(elem_bit(32), 0u);
  EXPECT_EQ(kElemsPerVec<std::uint8_t>, 16);
  EXPECT_EQ(kElemsPerVec<std::uint64_t>, 2);
}

// Each layout maps the N x N tile one-to-one into its array.
template <class L>
void expect_bijection() {
  std::set<int> used;
  for (int r = 0; r < L::kN; ++r)
    for (int c = 0; c < L::kN; ++c) {
      const int i = L::index(r, c);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, L::kElems);
      ASSERT_TRUE(used.insert(i).second) << "(" << r << "," << c << ") collides";
    }
}

TEST(SmemLayouts, AreBijections) {
  expect_bijection<RowMajorLayout<32>>();
  expect_bijection<PaddedLayout<32>>();
  expect_bijection<XorLayout<32>>();
  expect_bijection<PaddedLayout<64>>();
  expect_bijection<XorLayout<64>>();
}

// The reason for padding and swizzle: a tile column of 4-byte words, bank = index mod 32.
TEST(SmemLayouts, ColumnBanksOfFourByteWords) {
  auto banks_of_column = [](auto layout, int c) {
    std::set<int> banks;
    for (int r = 0; r < 32; ++r) banks.insert(decltype(layout)::index(r, c) % 32);
    return banks.size();
  };
  EXPECT_EQ(banks_of_column(RowMajorLayout<32>{}, 5), 1u);  // 32-way conflict
  EXPECT_EQ(banks_of_column(PaddedLayout<32>{}, 5), 32u);
  EXPECT_EQ(banks_of_column(XorLayout<32>{}, 5), 32u);
  // Swizzle<5,0,5> on the linear index i = r*32 + c is i ^ ((i >> 5) & 31).
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      const int i = r * 32 + c;
      EXPECT_EQ(XorLayout<32>::index(r, c), i ^ ((i >> 5) & 31));
    }
}

TEST(TileGrid, CapsBothDimensions) {
  TileGrid g = tile_grid(10, 20);
  EXPECT_EQ(g.x, 20u);
  EXPECT_EQ(g.y, 10u);
  g = tile_grid(std::int64_t(1) << 20, std::int64_t(1) << 40);
  EXPECT_EQ(g.y, 65535u);
  EXPECT_EQ(g.x, 0x7fffffffu);
  EXPECT_EQ(ceil_div(2049, 32), 65);
}

}  // namespace
}  // namespace tmakit
