// Plans (tmakit/plan.hpp) on the GPU: one plan run on many operand pairs (aligned and not,
// strided and batched), replayed from a CUDA graph with new input each replay, the measure
// tuning leaving the caller's dst correct (and an accumulate's untouched), measured decisions
// kept as wisdom and used, wisdom of another GPU model ignored, fallbacks chosen by measuring,
// and bad operands rejected with dst untouched. Every output is compared bit for bit with the
// CPU reference.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/tools/testdata.hpp>
#include <host/transpose/wisdom.hpp>
#include <tests/support/accumulate.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/ranking.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/scoped_env.hpp>
#include <tmakit/plan.hpp>

namespace tmakit {
namespace {

struct PlanCase {
  const char* name;
  std::int64_t rows, cols;
  int elem_bytes;
  MatrixLayout layout;
};

const std::vector<PlanCase>& plan_cases() {
  static const std::vector<PlanCase> cases = {
      {"square_2B", 1024, 2048, 2, {}},
      {"odd_1B", 1001, 999, 1, {}},
      {"skinny_4B", 4000, 7, 4, {}},
      {"wide_8B", 5, 3000, 8, {}},
      {"batched_8B", 97, 75, 8, {300, 0, 0, 0, 0}},
      {"batched_16B", 16, 16, 16, {1000, 0, 0, 0, 0}},
      {"strided_4B", 40, 130, 4, {4, 144, 48, 40 * 144 + 32, 130 * 48 + 16}},
      {"strided_2B_16B_pitches", 64, 96, 2, {3, 104, 72, 64 * 104 + 64, 96 * 72 + 8}},
  };
  return cases;
}

std::string key_of(const Plan& plan) {
  const std::string text = plan.explain();
  const std::size_t at = text.find("key:");
  if (at == std::string::npos) return {};
  std::size_t b = text.find_first_not_of(' ', at + 4);
  return text.substr(b, text.find('\n', b) - b);
}

// Every case, `auto` and a named TMA technique, each plan run on five fresh operand pairs
// (two of them off 16-byte alignment).
TEST(Plan, RunsOnManyOperandPairs) {
  TMAKIT_NEED_GPU(75);
  DeviceInfo dev;
  ASSERT_TRUE(query_device(&dev).ok());
  for (const PlanCase& c : plan_cases()) {
    for (const char* variant : {"auto", "tma_load_store"}) {
      if (c.elem_bytes == 16 && std::string(variant) == "tma_load_store") continue;
      TransposeOptions opt;
      opt.variant = variant;
      Plan plan;
      const Status made = make_plan(&plan, c.rows, c.cols, c.elem_bytes, c.layout, opt);
      ASSERT_TRUE(made.ok()) << c.name << " " << variant << ": " << made.message;
      ASSERT_TRUE(plan.valid());
      const std::size_t e = static_cast<std::size_t>(c.elem_bytes);
      for (const auto& [so, dof] : {std::pair<std::size_t, std::size_t>{0, 0},
                                    {256, 512},
                                    {e, 0},
                                    {0, 3 * e},
                                    {1024, 1024}}) {
        Status ran;
        const std::string err = test::check_transpose_layout(
            c.rows, c.cols, c.elem_bytes, false, c.layout,
            [&](const void* s, void* d) {
              ran = plan.run(s, d);
              return ran;
            },
            so, dof);
        EXPECT_EQ(err, "") << c.name << " " << variant << " at offsets " << so << "/" << dof;
        // Aligned operands run what the plan says; others may run its fallback, and say why.
        if ((so % 16 == 0 && dof % 16 == 0) || plan.fallback_reason() != "") {
          EXPECT_EQ(ran.variant, plan.variant()) << c.name << " " << variant;
        } else if (ran.variant != plan.variant()) {
          EXPECT_NE(ran.fallback_reason, "") << c.name << " " << variant;
          EXPECT_FALSE(find_variant(ran.variant)->uses_tma) << c.name;
        }
      }
    }
  }
}

// A plan's run captured into a CUDA graph (two operand pairs, so two sets of tensor-map
// addresses), replayed with new input each time.
TEST(Plan, ReplaysInACudaGraph) {
  TMAKIT_NEED_GPU(75);
  struct GraphCase {
    std::int64_t rows, cols;
    int e;
    const char* variant;
  };
  for (const GraphCase& c :
       {GraphCase{1000, 999, 2, "auto"}, GraphCase{1024, 512, 2, "tma_load_store"},
        GraphCase{3000, 17, 8, "auto"}, GraphCase{256, 256, 4, "tma_wide"}}) {
    const std::int64_t n = c.rows * c.cols;
    const std::size_t bytes = static_cast<std::size_t>(n) * c.e;
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    unsigned char *src[2] = {}, *dst[2] = {};
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&src[k]), bytes), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst[k]), bytes), cudaSuccess);
    }
    TransposeOptions opt;
    opt.variant = c.variant;
    opt.stream = stream;
    Plan plan;
    ASSERT_TRUE(make_plan(&plan, c.rows, c.cols, c.e, {}, opt).ok());
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    const std::string what = std::string(c.variant) + " " + std::to_string(c.rows) + "x" +
                             std::to_string(c.cols) + " e" + std::to_string(c.e) + " (runs " +
                             plan.variant() + ")";
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    cudaStreamCaptureStatus cs0 = cudaStreamCaptureStatusNone, cs1 = cs0;
    const Status r0 = plan.run(src[0], dst[0]);
    cudaStreamIsCapturing(stream, &cs0);
    const Status r1 = plan.run(src[1], dst[1], stream);
    cudaStreamIsCapturing(stream, &cs1);
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    EXPECT_EQ(cs0, cudaStreamCaptureStatusActive) << what << ": the first run ended the capture";
    EXPECT_EQ(cs1, cudaStreamCaptureStatusActive) << what << ": the second run ended the capture";
    ASSERT_EQ(ended, cudaSuccess) << what;
    ASSERT_TRUE(r0.ok()) << what << ": " << r0.message;
    ASSERT_TRUE(r1.ok()) << what << ": " << r1.message;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    std::vector<unsigned char> in(bytes), ref(bytes), out(bytes);
    fill_index_pattern(in, n, c.e);
    for (int rep = 0; rep < 12; ++rep) {
      for (int k = 0; k < 2; ++k) {
        for (std::size_t i = 0; i < bytes; ++i)
          in[i] = static_cast<unsigned char>(in[i] * 5 + rep + k);
        ASSERT_EQ(cudaMemcpy(src[k], in.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemset(dst[k], kPoisonByte, bytes), cudaSuccess);
      }
      std::vector<std::vector<unsigned char>> inputs(2);
      for (int k = 0; k < 2; ++k) {
        inputs[k].resize(bytes);
        ASSERT_EQ(cudaMemcpy(inputs[k].data(), src[k], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      }
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      for (int k = 0; k < 2; ++k) {
        ASSERT_TRUE(reference_transpose(inputs[k].data(), ref.data(), c.rows, c.cols, c.e).ok());
        ASSERT_EQ(cudaMemcpy(out.data(), dst[k], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(first_mismatch(out.data(), ref.data(), n, c.e), -1)
            << c.variant << " " << c.rows << "x" << c.cols << " replay " << rep << " pair " << k;
      }
    }
    // synchronize = true cannot be captured: an error, and the capture survives it.
    TransposeOptions sync_opt = opt;
    sync_opt.synchronize = true;
    Plan sync_plan;
    ASSERT_TRUE(make_plan(&sync_plan, c.rows, c.cols, c.e, {}, sync_opt).ok());
    cudaGraph_t g2 = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    const Status bad = sync_plan.run(src[0], dst[0]);
    EXPECT_EQ(cudaStreamEndCapture(stream, &g2), cudaSuccess);
    EXPECT_FALSE(bad.ok());
    EXPECT_NE(bad.message.find("captured"), std::string::npos) << bad.message;
    if (g2) cudaGraphDestroy(g2);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    for (int k = 0; k < 2; ++k) {
      cudaFree(src[k]);
      cudaFree(dst[k]);
    }
    cudaStreamDestroy(stream);
  }
}

// Measuring on the caller's operands leaves dst holding the transpose.
TEST(Plan, MeasureLeavesTheCallersDstCorrect) {
  TMAKIT_NEED_GPU(75);
  clear_wisdom();
  struct M {
    std::int64_t rows, cols;
    int e;
    MatrixLayout layout;
  };
  for (const M& c : {M{1000, 999, 4, {}}, M{512, 768, 1, {}}, M{97, 75, 8, {40, 0, 0, 0, 0}},
                     M{4000, 16, 2, {}}}) {
    TuneOptions tune;
    tune.mode = Tuning::kMeasure;
    tune.rounds = 3;
    Plan plan;
    Status made;
    const std::string err = test::check_transpose_layout(
        c.rows, c.cols, c.e, false, c.layout, [&](const void* s, void* d) {
          tune.src = s;
          tune.dst = d;
          made = make_plan(&plan, c.rows, c.cols, c.e, c.layout, {}, tune);
          return made;  // nothing else runs: dst is what make_plan left
        });
    EXPECT_EQ(err, "") << c.rows << "x" << c.cols << " e" << c.e;
    ASSERT_TRUE(made.ok()) << made.message;
    EXPECT_EQ(plan.source(), "measured");
    EXPECT_GT(plan.measured_us(), 0);
    EXPECT_GT(plan.tune_ms(), 0);
    EXPECT_NE(plan.explain().find("techniques timed"), std::string::npos) << plan.explain();
    // The plan runs correctly on other operands too.
    EXPECT_EQ(test::check_transpose_layout(c.rows, c.cols, c.e, false, c.layout,
                                           [&](const void* s, void* d) { return plan.run(s, d); }),
              "");
  }
}

// Measure at first use (set_default_tuning, or TMAKIT_TUNING=measure): a transpose() call of a
// new problem measures once (one wisdom entry more, the result right), the same call again
// measures nothing, a plan with the default tuning finds the decision as wisdom, and with
// TMAKIT_WISDOM naming a file the decision is saved there; back on the heuristic, a new problem
// is ranked, not measured.
TEST(Plan, DefaultTuningMeasuresEachProblemOnce) {
  TMAKIT_NEED_GPU(75);
  clear_wisdom();
  const std::string path = ::testing::TempDir() + "tmakit_measure_default.wisdom";
  std::remove(path.c_str());
  test::ScopedEnv env("TMAKIT_WISDOM", path.c_str());
  ASSERT_TRUE(set_default_tuning(Tuning::kMeasure).ok());
  EXPECT_EQ(default_tuning(), Tuning::kMeasure);
  const int before = wisdom_size();
  Status st;
  auto call = [&](const void* s, void* d) {
    st = transpose(s, d, 1003, 517, 4);
    return st;
  };
  EXPECT_EQ(test::check_transpose(1003, 517, 4, false, 0, call), "");
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(wisdom_size(), before + 1) << "the first call did not measure";
  const std::string first = st.variant;
  EXPECT_EQ(test::check_transpose(1003, 517, 4, false, 0, call), "");
  EXPECT_EQ(wisdom_size(), before + 1) << "the second call measured again";
  EXPECT_EQ(st.variant, first);
  Plan plan;
  ASSERT_TRUE(make_plan(&plan, 1003, 517, 4).ok());
  EXPECT_EQ(plan.source(), "wisdom") << plan.explain();
  EXPECT_EQ(plan.variant(), first);
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("1003x517"), std::string::npos) << "not saved to " << path;
  EXPECT_FALSE(set_default_tuning(Tuning::kDefault).ok());
  ASSERT_TRUE(set_default_tuning(Tuning::kHeuristic).ok());
  Plan ranked;
  ASSERT_TRUE(make_plan(&ranked, 1003, 519, 4).ok());
  EXPECT_EQ(ranked.source(), "heuristic");
  EXPECT_EQ(ranked.variant(), test::next_runnable(1003, 519, 4, {})) << ranked.explain();
  std::remove(path.c_str());
  clear_wisdom();
}

// Measuring an accumulate never touches the caller's buffers (scratch ones are timed).
TEST(Plan, MeasuredAccumulateLeavesDstUntouchedThenRunsCorrectly) {
  TMAKIT_NEED_GPU(75);
  clear_wisdom();
  for (DataType type : {DataType::kF32, DataType::kBF16, DataType::kF64}) {
    const std::int64_t rows = 300, cols = 129;
    const std::size_t bytes = static_cast<std::size_t>(rows * cols * data_type_bytes(type));
    void *src = nullptr, *dst = nullptr;
    ASSERT_EQ(cudaMalloc(&src, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dst, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(src, 0x3c, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(dst, kPoisonByte, bytes), cudaSuccess);
    TuneOptions tune;
    tune.mode = Tuning::kMeasure;
    tune.rounds = 3;
    tune.src = src;
    tune.dst = dst;
    Plan plan;
    const Status made = make_accumulate_plan(&plan, rows, cols, type, 1.0, 1.0, {}, {}, tune);
    ASSERT_TRUE(made.ok()) << made.message;
    std::vector<unsigned char> after(bytes);
    ASSERT_EQ(cudaMemcpy(after.data(), dst, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::size_t i = 0; i < bytes; ++i)
      ASSERT_EQ(after[i], kPoisonByte) << to_string(type) << ": dst byte " << i << " changed";
    cudaFree(src);
    cudaFree(dst);
    EXPECT_EQ(plan.source(), "measured");
    for (double beta : {1.0}) {
      (void)beta;
      EXPECT_EQ(
          test::check_transpose_accumulate(rows, cols, type, 1.0, 1.0, {},
                                           [&](const void* s, void* d) { return plan.run(s, d); }),
          "")
          << to_string(type);
    }
  }
}

// A measured decision is wisdom: a heuristic plan of the same problem uses it. An entry of this
// GPU is used; the same entry of another GPU model is not.
TEST(Plan, WisdomIsUsedForThisGpuOnly) {
  TMAKIT_NEED_GPU(75);
  clear_wisdom();
  const std::int64_t rows = 1500, cols = 1001;
  const int e = 4;
  Plan measured;
  TuneOptions tune;
  tune.mode = Tuning::kMeasure;
  tune.rounds = 3;
  ASSERT_TRUE(make_plan(&measured, rows, cols, e, {}, {}, tune).ok());
  EXPECT_EQ(wisdom_size(), 1);
  Plan again;
  ASSERT_TRUE(make_plan(&again, rows, cols, e).ok());
  EXPECT_EQ(again.source(), "wisdom") << again.explain();
  EXPECT_EQ(again.variant(), measured.variant());
  // transpose() picks it up too.
  EXPECT_EQ(test::check_transpose(rows, cols, e, false, 0,
                                  [&](const void* s, void* d) {
                                    Status st = transpose(s, d, rows, cols, e);
                                    EXPECT_EQ(st.variant, measured.variant());
                                    return st;
                                  }),
            "");

  // Hand-written entries naming a technique the heuristic would not pick.
  clear_wisdom();
  Plan heuristic;
  ASSERT_TRUE(make_plan(&heuristic, rows, cols, e).ok());
  EXPECT_EQ(heuristic.source(), "heuristic");
  const std::string other = heuristic.variant() == "smem_padded" ? "smem" : "smem_padded";
  GpuKey me;
  ASSERT_TRUE(current_gpu_key(&me).ok());
  auto entry = [&](const std::string& gpu_name) {
    return "tmakit-wisdom 1\ngpu=" + gpu_name + "\tsms=" + std::to_string(me.sm_count) +
           "\tmem_khz=" + std::to_string(me.mem_clock_khz) +
           "\tdriver=" + std::to_string(me.driver_version) + "\tproblem=" + key_of(heuristic) +
           "\tvariant=" + other + "\tus=1.000\tcandidates=9\nend 1\n";
  };
  WisdomLoad loaded;
  ASSERT_TRUE(import_wisdom(entry("Some Other GPU"), "other", &loaded).ok());
  EXPECT_EQ(loaded.for_other_gpus, 1);
  EXPECT_EQ(loaded.for_this_gpu, 0);
  Plan ignoring;
  ASSERT_TRUE(make_plan(&ignoring, rows, cols, e).ok());
  EXPECT_EQ(ignoring.source(), "heuristic");
  EXPECT_EQ(ignoring.variant(), heuristic.variant());
  ASSERT_TRUE(import_wisdom(entry(me.name), "mine", &loaded).ok());
  EXPECT_EQ(loaded.for_this_gpu, 1);
  Plan using_it;
  ASSERT_TRUE(make_plan(&using_it, rows, cols, e).ok());
  EXPECT_EQ(using_it.source(), "wisdom");
  EXPECT_EQ(using_it.variant(), other);
  EXPECT_EQ(test::check_transpose(rows, cols, e, false, 16,
                                  [&](const void* s, void* d) { return using_it.run(s, d); }),
            "");
  // use_wisdom = false ignores it.
  TuneOptions no_wisdom;
  no_wisdom.use_wisdom = false;
  Plan fresh;
  ASSERT_TRUE(make_plan(&fresh, rows, cols, e, {}, {}, no_wisdom).ok());
  EXPECT_EQ(fresh.variant(), heuristic.variant());
  clear_wisdom();
}

// A named TMA technique that cannot run (TMA switched off) measured among the techniques that
// can; `auto` with TMA off measures among the LDG/STG ones.
TEST(Plan, FallbacksAreChosenByMeasuring) {
  TMAKIT_NEED_GPU(75);
  clear_wisdom();
  TransposeOptions opt;
  opt.variant = "tma_load_store";
  opt.allow_tma = false;
  TuneOptions tune;
  tune.mode = Tuning::kMeasure;
  tune.rounds = 3;
  Plan plan;
  const Status made = make_plan(&plan, 2048, 2048, 2, {}, opt, tune);
  ASSERT_TRUE(made.ok()) << made.message;
  EXPECT_NE(plan.fallback_reason().find("allow_tma"), std::string::npos) << plan.explain();
  EXPECT_EQ(plan.source(), "measured");
  EXPECT_FALSE(find_variant(plan.variant())->uses_tma) << plan.variant();
  EXPECT_EQ(test::check_transpose(2048, 2048, 2, false, 0,
                                  [&](const void* s, void* d) {
                                    Status st = plan.run(s, d);
                                    EXPECT_EQ(st.variant, plan.variant());
                                    EXPECT_NE(st.fallback_reason, "");
                                    return st;
                                  }),
            "");
  const test::ScopedEnv off("TMAKIT_DISABLE_TMA", "1");
  Plan automatic;
  ASSERT_TRUE(make_plan(&automatic, 4096, 1024, 1, {}, {}, tune).ok());
  EXPECT_FALSE(find_variant(automatic.variant())->uses_tma) << automatic.variant();
  EXPECT_EQ(test::check_transpose(4096, 1024, 1, false, 0,
                                  [&](const void* s, void* d) { return automatic.run(s, d); }),
            "");
  clear_wisdom();
}

// What make_plan refuses, it refuses as transpose() does; bad operands of run() are refused with
// dst untouched.
TEST(Plan, BadPlansAndBadOperandsAreRefused) {
  TMAKIT_NEED_GPU(75);
  Plan plan;
  EXPECT_FALSE(plan.valid());
  EXPECT_FALSE(plan.run(nullptr, nullptr).ok());
  const Status zero = make_plan(&plan, 0, 5, 4);
  EXPECT_NE(zero.message.find("rows must be >= 1"), std::string::npos) << zero.message;
  EXPECT_FALSE(plan.valid());
  TransposeOptions opt;
  opt.variant = "no_such_technique";
  EXPECT_NE(make_plan(&plan, 5, 5, 4, {}, opt).message.find("unknown variant"), std::string::npos);
  TuneOptions tune;
  tune.rounds = 0;
  EXPECT_NE(make_plan(&plan, 5, 5, 4, {}, {}, tune).message.find("rounds"), std::string::npos);
  tune.rounds = 3;
  int dummy = 0;
  tune.src = &dummy;
  EXPECT_NE(make_plan(&plan, 5, 5, 4, {}, {}, tune).message.find("both src and dst"),
            std::string::npos);
  EXPECT_NE(make_plan(nullptr, 5, 5, 4).message.find("null"), std::string::npos);

  ASSERT_TRUE(make_plan(&plan, 64, 48, 4).ok());
  const std::size_t bytes = 64 * 48 * 4;
  unsigned char *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&src), 2 * bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), bytes + 64), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, kPoisonByte, bytes + 64), cudaSuccess);
  std::vector<unsigned char> host(bytes);
  const Status null_src = plan.run(nullptr, dst);
  EXPECT_NE(null_src.message.find("src is a null pointer"), std::string::npos);
  const Status overlap = plan.run(src, src + 100 * 4);
  EXPECT_NE(overlap.message.find("overlap"), std::string::npos) << overlap.message;
  const Status misaligned = plan.run(src + 2, dst);
  EXPECT_NE(misaligned.message.find("not aligned to the 4-byte"), std::string::npos)
      << misaligned.message;
  const Status pageable = plan.run(host.data(), dst);
  EXPECT_NE(pageable.message.find("not device-accessible"), std::string::npos) << pageable.message;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> after(bytes + 64);
  ASSERT_EQ(cudaMemcpy(after.data(), dst, after.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < after.size(); ++i)
    ASSERT_EQ(after[i], kPoisonByte) << "dst byte " << i << " written by a refused run";
  cudaFree(src);
  cudaFree(dst);
}

}  // namespace
}  // namespace tmakit
