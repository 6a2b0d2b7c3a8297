// Wisdom files (host/transpose/wisdom.hpp), without a GPU: the text round trip, entries of
// another GPU model or driver kept but never found for this one, and every way a file can be
// corrupt or cut short refused with the file and line named and nothing merged.
#include <cstdio>
#include <fstream>
#include <string>
#include <gtest/gtest.h>
#include <host/transpose/wisdom.hpp>
#include <tmakit/plan.hpp>

namespace tmakit {
namespace {

GpuKey h100() {
  return {"NVIDIA H100 80GB HBM3", 132, 2619000, 13000};
}
GpuKey h200() {
  return {"NVIDIA H200", 132, 3201000, 13000};
}
const char* const kProblemA =
    "transpose e2 auto 4096x4096 b1 ld4096,4096 bs16777216,16777216 a16 tma cc90";
const char* const kProblemB =
    "accumulate f32 beta1 auto 577x64 b384 ld64,577 bs36928,36928 a16 tma cc90";

void fill_two_gpus(WisdomStore* s) {
  s->record(h100(), kProblemA, {"smem_wide", 41.25, 14});
  s->record(h200(), kProblemA, {"tma_load_store", 33.5, 15});
  s->record(h100(), kProblemB, {"smem_accumulate", 12.0, 2});
}

std::string two_gpus_text() {
  WisdomStore s;
  fill_two_gpus(&s);
  return s.export_text();
}

TEST(Wisdom, TextRoundTripKeepsEveryEntry) {
  const std::string text = two_gpus_text();
  EXPECT_EQ(text.rfind("tmakit-wisdom 1\n", 0), 0u) << text;
  WisdomStore b;
  const GpuKey me = h100();
  WisdomLoad loaded;
  ASSERT_TRUE(b.import_text(text, "round-trip", &me, &loaded).ok());
  EXPECT_EQ(loaded.entries, 3);
  EXPECT_EQ(loaded.for_this_gpu, 2);
  EXPECT_EQ(loaded.for_other_gpus, 1);
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.export_text(), text);  // byte for byte
  WisdomEntry e;
  ASSERT_TRUE(b.find(h100(), kProblemA, &e));
  EXPECT_EQ(e.variant, "smem_wide");
  EXPECT_DOUBLE_EQ(e.us, 41.25);
  EXPECT_EQ(e.candidates, 14);
  ASSERT_TRUE(b.find(h200(), kProblemA, &e));
  EXPECT_EQ(e.variant, "tma_load_store");
}

TEST(Wisdom, AnotherGpuModelOrDriverIsNeverFound) {
  WisdomStore s;
  s.record(h200(), kProblemA, {"tma_load_store", 33.5, 15});
  WisdomEntry e;
  EXPECT_FALSE(s.find(h100(), kProblemA, &e));
  GpuKey other_driver = h200();
  other_driver.driver_version = 12080;
  EXPECT_FALSE(s.find(other_driver, kProblemA, &e));
  GpuKey other_sms = h200();
  other_sms.sm_count = 78;  // an H20-like part with the same name would still differ here
  EXPECT_FALSE(s.find(other_sms, kProblemA, &e));
  EXPECT_TRUE(s.find(h200(), kProblemA, &e));
  EXPECT_FALSE(s.find(h200(), kProblemB, &e));
}

TEST(Wisdom, ALaterRecordReplacesTheEntry) {
  WisdomStore s;
  fill_two_gpus(&s);
  s.record(h100(), kProblemA, {"reg_realign", 40.0, 14});
  WisdomEntry e;
  ASSERT_TRUE(s.find(h100(), kProblemA, &e));
  EXPECT_EQ(e.variant, "reg_realign");
  EXPECT_EQ(s.size(), 3);
}

// Every cut of a valid file short of its end is refused, names the origin, and merges nothing.
TEST(Wisdom, EveryTruncationIsRefusedAndMergesNothing) {
  const std::string text = two_gpus_text();
  ASSERT_EQ(text.back(), '\n');
  const GpuKey me = h100();
  // Without its last newline the file is whole ("end 3" read): every shorter cut must fail.
  for (std::size_t len = 0; len + 1 < text.size(); ++len) {
    WisdomStore s;
    const Status st = s.import_text(text.substr(0, len), "cut.wisdom", &me, nullptr);
    EXPECT_FALSE(st.ok()) << "a file cut at byte " << len << " was accepted";
    EXPECT_NE(st.message.find("cut.wisdom"), std::string::npos) << st.message;
    EXPECT_EQ(s.size(), 0) << "cut at " << len;
  }
  WisdomStore whole;
  EXPECT_TRUE(whole.import_text(text.substr(0, text.size() - 1), "x", &me, nullptr).ok());
}

struct Corruption {
  const char* what;
  std::string from, to;  // replace the first `from` in a valid file by `to`
  const char* message;   // a piece of the error
};

TEST(Wisdom, CorruptFilesAreRefusedWithTheLine) {
  const std::string text = two_gpus_text();
  const Corruption cases[] = {
      {"not wisdom", "tmakit-wisdom 1", "hello", "not a tmakit wisdom file"},
      {"newer version", "tmakit-wisdom 1", "tmakit-wisdom 2", "format version 2"},
      {"no version", "tmakit-wisdom 1", "tmakit-wisdom", "the first line must be"},
      {"unknown technique", "variant=smem_wide", "variant=smem_fastest", "smem_fastest"},
      {"time not a number", "us=41.250", "us=fast", "is not a time"},
      {"negative time", "us=41.250", "us=-1", "is not a time"},
      {"sms not a number", "sms=132", "sms=lots", "sms="},
      {"a field missing", "\tcandidates=14", "", "tab-separated fields"},
      {"a field renamed", "\tdriver=", "\tdrv=", "field 4 must be driver="},
      {"a field too many", "\tcandidates=14", "\tcandidates=14\tx=1", "tab-separated fields"},
      {"end count wrong", "end 3", "end 4", "counts 4 records"},
      {"end without count", "end 3", "end", "'end' must be followed"},
      {"text after end", "end 3\n", "end 3\ngpu=x\n", "after the 'end' line"},
      {"binary junk", "gpu=NVIDIA H100", std::string("gpu=NVIDIA\x01\xff H100\n\n\n"), "line"},
  };
  const GpuKey me = h100();
  for (const Corruption& c : cases) {
    std::string bad = text;
    const std::size_t at = bad.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.what;
    bad.replace(at, c.from.size(), c.to);
    WisdomStore s;
    s.record(h100(), "kept", {"smem_wide", 1, 1});
    const Status st = s.import_text(bad, "bad.wisdom", &me, nullptr);
    EXPECT_FALSE(st.ok()) << c.what << " was accepted";
    EXPECT_NE(st.message.find("bad.wisdom, line "), std::string::npos)
        << c.what << ": " << st.message;
    EXPECT_NE(st.message.find(c.message), std::string::npos) << c.what << ": " << st.message;
    EXPECT_EQ(s.size(), 1) << c.what << ": the store changed";
  }
}

// permute()'s records (host/permute/tune.cpp) name a permutation technique or a transpose()
// technique; a name that is neither is refused like any unknown technique.
TEST(Wisdom, PermutationRecordsNameAPermutationOrTransposeTechnique) {
  const char* const problem =
      "permute e4 tile: extents (8, 9, 10, 11, 120) perm (4, 1, 3, 0, 2) ss(118800, 13200, 1320, "
      "120, 1) ds(10, 95040, 1, 950400, 990) a16 tma cc90 policy h100";
  WisdomStore s;
  s.record(h100(), problem, {"permute_tile", 9.5, 3});
  s.record(h100(), kProblemA, {"permute_transpose", 41.0, 3});
  const std::string text = s.export_text();
  WisdomStore b;
  const GpuKey me = h100();
  ASSERT_TRUE(b.import_text(text, "permute.wisdom", &me, nullptr).ok());
  WisdomEntry e;
  ASSERT_TRUE(b.find(h100(), problem, &e));
  EXPECT_EQ(e.variant, "permute_tile");
  std::string bad = text;
  const std::size_t at = bad.find("variant=permute_tile");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 20, "variant=permute_fast");
  WisdomStore c;
  const Status st = c.import_text(bad, "bad.wisdom", &me, nullptr);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message.find("permute_fast"), std::string::npos) << st.message;
  EXPECT_EQ(c.size(), 0);
}

TEST(Wisdom, CommentsAndBlankLinesAreIgnored) {
  std::string text = two_gpus_text();
  text.insert(text.find("gpu="), "\n# a note\n\n");
  WisdomStore s;
  EXPECT_TRUE(s.import_text(text, "x", nullptr, nullptr).ok());
  EXPECT_EQ(s.size(), 3);
}

// The file functions of tmakit/plan.hpp on this machine's process store: save, clear, load.
TEST(Wisdom, SaveAndLoadAFile) {
  clear_wisdom();
  const std::string good = two_gpus_text();
  ASSERT_TRUE(import_wisdom(good, "text").ok());
  EXPECT_EQ(wisdom_size(), 3);
  const std::string path = ::testing::TempDir() + "tmakit-test.wisdom";
  ASSERT_TRUE(save_wisdom(path).ok());
  clear_wisdom();
  EXPECT_EQ(wisdom_size(), 0);
  WisdomLoad loaded;
  const Status st = load_wisdom(path, &loaded);
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(loaded.entries, 3);
  EXPECT_EQ(loaded.for_this_gpu + loaded.for_other_gpus, 3);
  EXPECT_EQ(export_wisdom(), good);
  // Truncated on disk: refused, nothing merged.
  clear_wisdom();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << good.substr(0, good.size() / 2);
  }
  const Status cut = load_wisdom(path);
  EXPECT_FALSE(cut.ok());
  EXPECT_NE(cut.message.find(path), std::string::npos) << cut.message;
  EXPECT_EQ(wisdom_size(), 0);
  std::remove(path.c_str());
  const Status missing = load_wisdom(path);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message.find("cannot open"), std::string::npos) << missing.message;
  // A folder that does not exist: save says so.
  EXPECT_FALSE(save_wisdom(::testing::TempDir() + "no/such/folder/x.wisdom").ok());
}

}  // namespace
}  // namespace tmakit
