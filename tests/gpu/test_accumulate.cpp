// Transpose-accumulate (dst = alpha * src^T + beta * dst): every accumulate technique x every
// data type x shapes x scalars, byte for byte against the CPU reference with integer-valued
// inputs (exact arithmetic), dst's padding untouched; where tma_reduce cannot run, the
// fallback ran and said why.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/device.hpp>
#include <tests/support/ranking.hpp>
#include <tests/support/accumulate.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

struct AccCase {
  std::string variant;
  DataType type;
};

void PrintTo(const AccCase& c, std::ostream* os) {
  *os << c.variant << "_" << to_string(c.type);
}

std::vector<AccCase> accumulate_cases() {
  std::vector<AccCase> cases;
  for (const VariantInfo& v : variants())
    if (v.kind == VariantKind::kAccumulate)
      for (DataType t :
           {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64, DataType::kI32})
        cases.push_back({v.token, t});
  return cases;
}

struct Scalars {
  double alpha, beta;
};

// Can tma_reduce itself run this call (TMA usable, beta = 1, a type TMA adds, 16-byte rows)?
bool tma_reduce_runs(std::int64_t rows, std::int64_t cols, DataType t, double beta) {
  const int e = data_type_bytes(t);
  return tma_unavailable_reason().empty() && beta == 1.0 && t != DataType::kF64 &&
         (rows * e) % 16 == 0 && (cols * e) % 16 == 0;
}

// Does technique v run this call itself, or fall back to the ranking's next runnable technique?
// The TMA techniques
// need TMA and 16-byte rows, tma_reduce also beta = 1 and a type TMA adds.
bool runs_itself(const std::string& v, std::int64_t rows, std::int64_t cols, DataType t,
                 double beta) {
  const int e = data_type_bytes(t);
  if (v == "tma_reduce") return tma_reduce_runs(rows, cols, t, beta);
  if (v == "tma_accumulate")
    return tma_unavailable_reason().empty() && (rows * e) % 16 == 0 && (cols * e) % 16 == 0;
  return true;
}

class Accumulate : public ::testing::TestWithParam<AccCase> {};

TEST_P(Accumulate, MatchesReferenceForEveryShapeAndScalars) {
  TMAKIT_NEED_GPU(75);
  const AccCase& c = GetParam();
  std::vector<test::Shape> shapes = test::standard_shapes();
  // Skinny both ways, aligned and odd (flat_accumulate's kWide and kTall forms, whole and
  // partial 16-byte chunks), and a sector-aligned odd pair (sector_accumulate's shifted rows).
  for (test::Shape s :
       {test::Shape{48, 80}, test::Shape{1040, 2000}, test::Shape{16, 4096}, test::Shape{4099, 16},
        test::Shape{7, 3001}, test::Shape{3001, 7}, test::Shape{20011, 24}, test::Shape{129, 1031}})
    shapes.push_back(s);
  int itself = 0;
  for (const test::Shape& s : shapes)
    for (Scalars sc : {Scalars{1, 1}, Scalars{2, 1}, Scalars{-1, 0}, Scalars{1, -2}}) {
      TransposeOptions opt;
      opt.variant = c.variant;
      Status st;
      const std::string err = test::check_transpose_accumulate(
          s.rows, s.cols, c.type, sc.alpha, sc.beta, {}, [&](const void* src, void* dst) {
            st = transpose_accumulate(src, dst, s.rows, s.cols, c.type, sc.alpha, sc.beta, {}, opt);
            return st;
          });
      const std::string where = c.variant + " " + to_string(c.type) + " " + std::to_string(s.rows) +
                                "x" + std::to_string(s.cols) + " alpha " +
                                std::to_string(sc.alpha) + " beta " + std::to_string(sc.beta);
      EXPECT_EQ(err, "") << where;
      if (runs_itself(c.variant, s.rows, s.cols, c.type, sc.beta)) {
        EXPECT_EQ(st.variant, c.variant) << where << ": " << st.fallback_reason;
        EXPECT_EQ(st.fallback_reason, "") << where;
        ++itself;
      } else {
        EXPECT_EQ(st.variant,
                  test::next_runnable_accumulate(s.rows, s.cols, c.type, sc.alpha, sc.beta, opt))
            << where << ": not the ranking's next runnable technique";
        EXPECT_NE(st.fallback_reason, "") << where;
      }
    }
  if (runs_itself(c.variant, 64, 64, c.type, 1.0))
    EXPECT_GE(itself, 6) << "too few calls ran " << c.variant << " itself";
}

INSTANTIATE_TEST_SUITE_P(Registry, Accumulate, ::testing::ValuesIn(accumulate_cases()),
                         [](const ::testing::TestParamInfo<AccCase>& p) {
                           return p.param.variant + "_" + to_string(p.param.type);
                         });

// A batch of strided matrices (pitches and gaps 16-byte multiples, so the TMA techniques run
// their 3-D maps): padding and gaps of dst untouched. Then dense batches of small odd and aligned
// matrices (flat_accumulate's kBatch form). Every accumulate technique and auto.
TEST(AccumulateLayout, BatchedStridedOperands) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    std::int64_t rows, cols;
    MatrixLayout lay;
  };
  const Case cases[] = {{48, 144, MatrixLayout{3, 160, 64, 48 * 160 + 32, 144 * 64 + 16}},
                        {33, 65, MatrixLayout{301}},
                        {32, 32, MatrixLayout{1024}}};
  std::vector<std::string> tokens = {"auto"};
  for (const VariantInfo& v : variants())
    if (v.kind == VariantKind::kAccumulate) tokens.push_back(v.token);
  for (const Case& c : cases)
    for (const std::string& v : tokens)
      for (DataType t : {DataType::kF16, DataType::kF32, DataType::kF64, DataType::kI32}) {
        TransposeOptions opt;
        opt.variant = v;
        Status st;
        EXPECT_EQ(test::check_transpose_accumulate(
                      c.rows, c.cols, t, 1, 1, c.lay,
                      [&](const void* src, void* dst) {
                        st = transpose_accumulate(src, dst, c.rows, c.cols, t, 1, 1, c.lay, opt);
                        return st;
                      }),
                  "")
            << v << " " << to_string(t) << " " << c.lay.batch << "x" << c.rows << "x" << c.cols;
        if (c.rows == 48 && (v == "tma_reduce" || v == "tma_accumulate") &&
            runs_itself(v, c.rows, c.cols, t, 1.0))
          EXPECT_EQ(st.variant, v) << st.fallback_reason;
      }
}

// The reasons tma_reduce gives, and allow_fallback = false turning them into errors.
TEST(AccumulateFallback, TmaReduceSaysWhyAndCanRefuse) {
  TMAKIT_NEED_GPU(75);
  TransposeOptions opt;
  opt.variant = "tma_reduce";
  Status st;
  auto run = [&](DataType t, double beta) {
    return test::check_transpose_accumulate(
        64, 64, t, 1, beta, {}, [&](const void* src, void* dst) {
          st = transpose_accumulate(src, dst, 64, 64, t, 1, beta, {}, opt);
          return st;
        });
  };
  EXPECT_EQ(run(DataType::kF32, 0.5), "");
  EXPECT_EQ(st.variant, test::next_runnable_accumulate(64, 64, DataType::kF32, 1, 0.5, opt));
  EXPECT_NE(st.fallback_reason.find("beta must be 1"), std::string::npos) << st.fallback_reason;
  EXPECT_EQ(run(DataType::kF64, 1), "");
  EXPECT_EQ(st.variant, test::next_runnable_accumulate(64, 64, DataType::kF64, 1, 1, opt));
  EXPECT_NE(st.fallback_reason.find("f64"), std::string::npos) << st.fallback_reason;
  opt.allow_fallback = false;
  void *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(&src, 64 * 64 * 8), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dst, 64 * 64 * 8), cudaSuccess);
  st = transpose_accumulate(src, dst, 64, 64, DataType::kF32, 1, 0.5, {}, opt);
  EXPECT_EQ(st.code, StatusCode::kUnsupported);
  EXPECT_NE(st.message.find("beta must be 1"), std::string::npos) << st.message;
  // 1001 f32 columns: src rows of 4004 bytes, not a tensor-map pitch.
  opt.allow_fallback = true;
  const std::string err = test::check_transpose_accumulate(
      64, 1001, DataType::kF32, 1, 1, {}, [&](const void* s, void* d) {
        st = transpose_accumulate(s, d, 64, 1001, DataType::kF32, 1, 1, {}, opt);
        return st;
      });
  EXPECT_EQ(err, "");
  EXPECT_EQ(st.variant, test::next_runnable_accumulate(64, 1001, DataType::kF32, 1, 1, opt));
  EXPECT_NE(st.fallback_reason.find("multiple of 16"), std::string::npos) << st.fallback_reason;
  cudaFree(src);
  cudaFree(dst);
}

TEST(AccumulateAuto, RunsWhatAutoPicksOrItsFallback) {
  TMAKIT_NEED_GPU(75);
  for (DataType t :
       {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64, DataType::kI32})
    for (double beta : {0.0, 1.0}) {
      Status st;
      EXPECT_EQ(test::check_transpose_accumulate(1040, 2000, t, 1, beta, {},
                                                 [&](const void* s, void* d) {
                                                   st = transpose_accumulate(s, d, 1040, 2000, t, 1,
                                                                             beta);
                                                   return st;
                                                 }),
                "")
          << to_string(t) << " beta " << beta;
      DeviceCaps caps;  // auto's table is the device's (the H200's differs at 2 B)
      ASSERT_TRUE(current_device_caps(&caps).ok());
      const std::string pick = auto_accumulate_variant(1040, 2000, t, beta, caps.dram_gbps);
      EXPECT_TRUE(st.variant == pick ||
                  (st.variant == "smem_accumulate" && !st.fallback_reason.empty()))
          << st.variant << " vs " << pick;
    }
}

}  // namespace
}  // namespace tmakit
