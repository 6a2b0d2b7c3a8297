// The public transpose: transpose() and transpose_accumulate() are one-call plans
// (host/transpose/plan_check.cpp: every check before anything is launched, so a rejected call
// writes nothing; the technique picked and its tensor maps encoded once per problem and kept).
// auto_variant, fallback_variant and auto_accumulate_variant, at the end, are thin wrappers over
// the one decider (host/transpose/decider.hpp).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <host/device.hpp>
#include <host/error.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/layout.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/registry.hpp>
#include <host/transpose/tma_dispatch.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {

const char* to_string(TmaBarrier barrier) {
  switch (barrier) {
    case TmaBarrier::kPtx:
      return "ptx";
    case TmaBarrier::kCudaBarrier:
      return "cuda_barrier";
    default:
      return "default";
  }
}

const char* to_string(VariantKind kind) {
  switch (kind) {
    case VariantKind::kTranspose:
      return "transpose";
    case VariantKind::kCopy:
      return "copy";
    case VariantKind::kAccumulate:
      return "accumulate";
    case VariantKind::kPermute:
      return "permute";
  }
  return "unknown";
}

const char* to_string(DataType type) {
  switch (type) {
    case DataType::kF16:
      return "f16";
    case DataType::kBF16:
      return "bf16";
    case DataType::kF32:
      return "f32";
    case DataType::kF64:
      return "f64";
    case DataType::kI32:
      return "i32";
  }
  return "unknown";
}

int data_type_bytes(DataType type) {
  switch (type) {
    case DataType::kF16:
    case DataType::kBF16:
      return 2;
    case DataType::kF32:
    case DataType::kI32:
      return 4;
    case DataType::kF64:
      return 8;
  }
  return 0;
}

Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const TransposeOptions& options) {
  return detail::run_call(
      detail::transpose_request(rows, cols, elem_bytes, MatrixLayout{}, options), src, dst);
}

Status transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const MatrixLayout& layout, const TransposeOptions& options) {
  return detail::run_call(detail::transpose_request(rows, cols, elem_bytes, layout, options), src,
                          dst);
}

Status transpose_accumulate(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                            DataType type, double alpha, double beta, const MatrixLayout& layout,
                            const TransposeOptions& options) {
  detail::Request req;
  if (Status s = detail::accumulate_request(rows, cols, type, alpha, beta, layout, options, &req);
      !s)
    return s;
  return detail::run_call(req, src, dst);
}

std::string tma_unavailable_reason(const TransposeOptions& options) {
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s.message;
  if (std::string why = missing_device_code(caps); !why.empty()) return why;
  return tma_unavailable(options.allow_tma, caps);
}

// ---- The decider's picks, without a device (host/transpose/decider.hpp) ----

namespace {

// The first ranked technique of `p` that `take` accepts; the last resort when none is ranked.
template <class F>
std::string first_ranked(const Problem& p, double dram_gbps, F take) {
  for (const auto& [token, ratio] : rank_techniques(std::string(), dram_gbps, p).ranked)
    if (const VariantDef* d = find_variant_def(token); d != nullptr && take(*d)) return token;
  return last_resort_technique(p);
}

}  // namespace

std::string auto_variant(std::int64_t rows, std::int64_t cols, int elem_bytes, std::int64_t batch,
                         double dram_gbps) {
  const Problem p{ProblemKind::kTranspose, elem_bytes, std::max<std::int64_t>(batch, 1), rows,
                  cols};
  return first_ranked(p, dram_gbps, [&](const VariantDef& d) {
    return d.info.kind == VariantKind::kTranspose && d.info.supports_elem_bytes(elem_bytes);
  });
}

std::string fallback_variant(const std::string& token, std::int64_t rows, std::int64_t cols,
                             int elem_bytes, double dram_gbps) {
  const VariantDef* def = find_variant_def(token);
  const VariantKind kind = def != nullptr ? def->info.kind : VariantKind::kTranspose;
  if (kind == VariantKind::kCopy) return "copy";
  const Problem p{
      kind == VariantKind::kAccumulate ? ProblemKind::kAccumulate : ProblemKind::kTranspose,
      elem_bytes, 1, rows, cols};
  return first_ranked(p, dram_gbps, [&](const VariantDef& d) {
    return d.info.token != token && d.info.kind == kind && d.plan == nullptr &&
           d.info.supports_elem_bytes(elem_bytes);
  });
}

std::string auto_accumulate_variant(std::int64_t rows, std::int64_t cols, DataType type,
                                    double beta, double dram_gbps) {
  const Problem p{beta == 0 ? ProblemKind::kAccumulateBeta0 : ProblemKind::kAccumulate,
                  data_type_bytes(type), 1, rows, cols};
  detail::AccumulateCall call;
  call.type = type;
  call.beta = beta;
  return first_ranked(p, dram_gbps, [&](const VariantDef& d) {
    return d.info.kind == VariantKind::kAccumulate && d.info.supports_elem_bytes(p.elem_bytes) &&
           detail::accumulate_unsupported(d, call).empty();
  });
}

}  // namespace tmakit
