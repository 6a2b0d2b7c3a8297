// `tmakit` and `tmakit list`: verify and time every registered variant against the copy
// roofline measured in the same run.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include <host/cli/args.hpp>
#include <host/cli/commands.hpp>
#include <host/cli/operands.hpp>
#include <kernels/common/elem.hpp>
#include <host/error.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/registry.hpp>
#include <host/tools/testdata.hpp>
#include <host/tools/timing.hpp>
#include <tmakit/permute.hpp>

namespace tmakit::cli {
namespace {

struct Row {
  std::string variant;
  std::string ran;  // the technique that actually ran (differs after a fallback)
  double median_ms = 0;
  double gbps = 0;
  bool verified = false;
  std::string note;
};

int fail(const Status& s) {
  return status_error("", s);
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

std::string elem_list(unsigned mask) {
  std::string s;
  for (int b = 1; b <= 16; b *= 2)
    if (mask & b) s += (s.empty() ? "" : ",") + std::to_string(b);
  return s;
}

}  // namespace

int run_list() {
  // Every technique: transpose(), its copies and accumulates (variants()), then permute()'s.
  std::vector<const VariantInfo*> rows;
  for (const VariantInfo& v : variants()) rows.push_back(&v);
  for (const VariantInfo& v : permute_variants()) rows.push_back(&v);
  int token_w = 7, kind_w = 4;
  for (const VariantInfo* v : rows) {
    token_w = std::max(token_w, static_cast<int>(v->token.size()));
    kind_w = std::max(kind_w, static_cast<int>(std::string(to_string(v->kind)).size()));
  }
  std::printf("%-*s  %-*s  %-6s  %-12s  %-5s  %s\n", token_w, "variant", kind_w, "kind", "min_cc",
              "elem_bytes", "align", "description");
  for (const VariantInfo* v : rows) {
    const std::string cc = std::to_string(v->min_cc / 10) + "." + std::to_string(v->min_cc % 10);
    std::printf("%-*s  %-*s  %-6s  %-12s  %-5d  %s\n", token_w, v->token.c_str(), kind_w,
                to_string(v->kind), cc.c_str(), elem_list(v->elem_bytes_mask).c_str(),
                v->fast_align_bytes, v->description.c_str());
  }
  std::printf(
      "auto: the first technique of the decider's ranking that can run the call (tmakit rank); "
      "tuning tables: ");
  const std::vector<std::string> tables = tuning_tables();
  for (std::size_t i = 0; i < tables.size(); ++i)
    std::printf("%s%s", i ? ", " : "", tables[i].c_str());
  std::printf("\n");
  return 0;
}

int run_table(const TableOptions& opt) {
  if (opt.rows < 1 || opt.cols < 1)
    return fail(make_status(StatusCode::kInvalidArgument, "--rows and --cols must be >= 1"));
  if (opt.iters < 1) return fail(make_status(StatusCode::kInvalidArgument, "--iters must be >= 1"));
  if (elem_bit(opt.elem_bytes) == 0)
    return fail(make_status(StatusCode::kInvalidArgument, "--elem-bytes must be 1, 2, 4, 8 or 16"));
  std::vector<std::string> tokens;
  if (opt.variant.empty()) {
    for (const VariantInfo& v : variants())
      if (v.kind != VariantKind::kAccumulate && v.supports_elem_bytes(opt.elem_bytes))
        tokens.push_back(v.token);
  } else {  // one token or a comma-separated list
    tokens = split_commas(opt.variant);
    for (const std::string& token : tokens)
      if (token != "auto" && find_variant(token) == nullptr)
        return fail(make_status(StatusCode::kInvalidArgument,
                                "unknown variant '" + token + "' (see `tmakit list`)"));
  }
  TmaBarrier barrier = TmaBarrier::kDefault;
  if (opt.barrier == "ptx")
    barrier = TmaBarrier::kPtx;
  else if (opt.barrier == "cuda_barrier")
    barrier = TmaBarrier::kCudaBarrier;
  else if (!opt.barrier.empty())
    return fail(make_status(StatusCode::kInvalidArgument,
                            "--barrier must be ptx or cuda_barrier (got '" + opt.barrier + "')"));
  // One row per (technique, swizzle, barrier): the axes only where the technique has them.
  struct RowSpec {
    std::string token, label;
    int swizzle_bytes;
    TmaBarrier barrier;
  };
  std::vector<RowSpec> specs;
  for (const std::string& token : tokens) {
    const VariantInfo* v = find_variant(token);
    std::vector<int> sws = {-1};
    std::vector<TmaBarrier> bars = {TmaBarrier::kDefault};
    if (v != nullptr && !v->swizzle_axis_bytes.empty()) {
      if (opt.all_axes)
        sws = v->swizzle_axis_bytes;
      else if (opt.swizzle_bytes >= 0)
        sws = {opt.swizzle_bytes};
    }
    if (v != nullptr && v->barrier_axis) {
      if (opt.all_axes)
        bars = {TmaBarrier::kPtx, TmaBarrier::kCudaBarrier};
      else
        bars = {barrier};
    }
    for (int sw : sws)
      for (TmaBarrier b : bars) {
        std::string label = token;
        if (sw >= 0 && (opt.all_axes || opt.swizzle_bytes >= 0))
          label += "/sw" + std::to_string(sw);
        if (b != TmaBarrier::kDefault) label += std::string("/") + to_string(b);
        specs.push_back({token, label, sw, b});
      }
  }

  DeviceInfo dev;
  if (Status s = query_device(&dev); !s) return fail(s);
  if (!opt.json)
    std::printf(
        "device %d: %s, compute capability %d.%d, %d SMs, SM clock %d MHz, memory clock "
        "%d MHz, %d-bit bus, L2 %d MB, driver %d.%d, runtime %d.%d\n",
        dev.device, dev.name.c_str(), dev.cc / 10, dev.cc % 10, dev.sm_count,
        dev.sm_clock_khz / 1000, dev.mem_clock_khz / 1000, dev.mem_bus_bits, dev.l2_bytes >> 20,
        dev.driver_version / 1000, (dev.driver_version % 1000) / 10, dev.runtime_version / 1000,
        (dev.runtime_version % 1000) / 10);

  const std::int64_t n = opt.rows * opt.cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * opt.elem_bytes;
  const double moved = 2.0 * static_cast<double>(bytes);
  std::vector<unsigned char> h_src, h_ref(bytes), h_out(bytes);
  fill_index_pattern(h_src, n, opt.elem_bytes);
  if (Status s =
          reference_transpose(h_src.data(), h_ref.data(), opt.rows, opt.cols, opt.elem_bytes);
      !s)
    return fail(s);

  const int warmup = 3;
  TimedOperands ops;  // src, dst, the L2 flusher, and cudaMemcpyAsync timed: the copy roofline
  if (Status s = prepare_operands(h_src, dev.l2_bytes, warmup, opt.iters, &ops); !s) return fail(s);
  const TimingStats& memcpy_stats = ops.memcpy;
  L2Flusher& flusher = ops.flusher;
  DeviceBuffer &d_src = ops.src, &d_dst = ops.dst;
  double best_copy = gbps(moved, memcpy_stats.median_ms);
  std::string best_copy_name = "cudaMemcpyAsync";

  std::vector<Row> rows;
  int failures = 0;
  for (const RowSpec& spec : specs) {
    const std::string& token = spec.token;
    Row row;
    row.variant = spec.label;
    const VariantInfo* info = find_variant(token);
    const bool is_copy = info != nullptr && info->kind == VariantKind::kCopy;
    TransposeOptions to;
    to.variant = token;
    to.swizzle_bytes = spec.swizzle_bytes;
    to.barrier = spec.barrier;
    // Verify once: poisoned output, one run, bit-for-bit comparison.
    cudaMemset(d_dst.p, kPoisonByte, bytes);
    // `ran` keeps what transpose() said ran and why; `s` goes on to the sync and copy-back.
    const Status ran = transpose(d_src.p, d_dst.p, opt.rows, opt.cols, opt.elem_bytes, to);
    Status s = ran;
    if (s) s = cuda_status(cudaDeviceSynchronize(), "kernel execution");
    if (s)
      s = cuda_status(cudaMemcpy(h_out.data(), d_dst.p, bytes, cudaMemcpyDeviceToHost),
                      "cudaMemcpy(dst)");
    row.ran = ran.variant.empty() ? token : ran.variant;
    if (!ran.fallback_reason.empty()) row.note = "ran " + row.ran + ": " + ran.fallback_reason;
    if (!s) {
      row.note = s.message;
      ++failures;
      rows.push_back(row);
      if (s.code == StatusCode::kCudaError) break;  // the context may be unusable now
      continue;
    }
    const std::int64_t bad =
        first_mismatch(h_out.data(), is_copy ? h_src.data() : h_ref.data(), n, opt.elem_bytes);
    row.verified = bad < 0;
    if (!row.verified) {
      ++failures;
      row.note = "MISMATCH at output element " + std::to_string(bad);
    }
    TimingStats st;
    s = time_launches(
        [&] { return transpose(d_src.p, d_dst.p, opt.rows, opt.cols, opt.elem_bytes, to); }, warmup,
        opt.iters, &flusher, nullptr, &st);
    if (!s) {
      row.note = s.message;
      ++failures;
    } else {
      row.median_ms = st.median_ms;
      row.gbps = gbps(moved, st.median_ms);
      if (is_copy && row.verified && row.gbps > best_copy) {
        best_copy = row.gbps;
        best_copy_name = spec.label;
      }
    }
    rows.push_back(row);
  }

  const double memcpy_gbps = gbps(moved, memcpy_stats.median_ms);
  if (opt.json) {
    std::printf(
        "{\n  \"device\": {\"name\": \"%s\", \"cc\": \"%d.%d\", \"sms\": %d, \"sm_clock_mhz\": %d, "
        "\"mem_clock_mhz\": %d, \"driver\": %d, \"runtime\": %d},\n",
        json_escape(dev.name).c_str(), dev.cc / 10, dev.cc % 10, dev.sm_count,
        dev.sm_clock_khz / 1000, dev.mem_clock_khz / 1000, dev.driver_version, dev.runtime_version);
    std::printf("  \"rows\": %lld, \"cols\": %lld, \"elem_bytes\": %d, \"iters\": %d,\n",
                static_cast<long long>(opt.rows), static_cast<long long>(opt.cols), opt.elem_bytes,
                opt.iters);
    std::printf(
        "  \"memcpy_gbps\": %.2f, \"best_copy_gbps\": %.2f, \"best_copy\": \"%s\",\n  \"results\": "
        "[\n",
        memcpy_gbps, best_copy, best_copy_name.c_str());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf(
          "    {\"variant\": \"%s\", \"ran\": \"%s\", \"median_ms\": %.5f, \"gbps\": %.2f, "
          "\"pct_of_copy\": %.2f, \"verified\": %s, \"note\": \"%s\"}%s\n",
          r.variant.c_str(), r.ran.c_str(), r.median_ms, r.gbps,
          best_copy > 0 ? 100.0 * r.gbps / best_copy : 0.0, r.verified ? "true" : "false",
          json_escape(r.note).c_str(), i + 1 < rows.size() ? "," : "");
    }
    std::printf("  ]\n}\n");
  } else {
    std::printf(
        "%lld x %lld, %d-byte elements, %.1f MB moved per run (read + write), median of %d runs\n",
        static_cast<long long>(opt.rows), static_cast<long long>(opt.cols), opt.elem_bytes,
        moved / 1e6, opt.iters);
    std::printf("copy roofline: cudaMemcpyAsync %.1f GB/s; best copy %.1f GB/s (%s)\n\n",
                memcpy_gbps, best_copy, best_copy_name.c_str());
    std::printf("%-34s %10s %10s %8s %9s  %s\n", "variant", "time_ms", "GB/s", "%copy", "verified",
                "note");
    for (const Row& r : rows)
      std::printf("%-34s %10.4f %10.1f %7.1f%% %9s  %s\n", r.variant.c_str(), r.median_ms, r.gbps,
                  best_copy > 0 ? 100.0 * r.gbps / best_copy : 0.0, r.verified ? "yes" : "NO",
                  r.note.c_str());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace tmakit::cli
