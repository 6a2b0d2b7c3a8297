// A plan's run (plan_state.hpp's launch_state): the per-run operand checks, the tensor maps with
// the operands' addresses swapped in (kept for the last few operand pairs), the technique for
// operands that break the plan's alignment, the launch.
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <host/error.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/wisdom.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit::detail {

Status launch_state(const PlanState& st, const void* src, void* dst, cudaStream_t stream,
                    bool synchronize, bool checked) {
  if (st.caps.described)
    return invalid("this plan is described for " + st.caps.name +
                   " (TuneOptions::gpu) and cannot run: make it with TuneOptions::gpu empty to "
                   "run it on this device");
  if (!checked) {
    if (Status s = check_null(src, dst); !s) return s;
    if (Status s = check_aligned_to_element(src, dst, st.req.elem_bytes); !s) return s;
    if (Status s =
            check_no_overlap(src, st.lay.src_span_bytes, dst, st.lay.dst_span_bytes, "transpose");
        !s)
      return s;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev != st.caps.device) {
      cudaGetLastError();
      return invalid("the plan was made for device " + std::to_string(st.caps.device) +
                     "; the current device is " + std::to_string(dev) +
                     " (make a plan per device)");
    }
    if (Status s = check_stream(st.caps.device, stream, synchronize); !s) return s;
  }
  for (const auto& [p, name] : {std::pair<const void*, const char*>{src, "src"}, {dst, "dst"}}) {
    {
      std::lock_guard<std::mutex> lock(st.recent_mu);
      if (std::find(st.checked.begin(), st.checked.end(), p) != st.checked.end()) continue;
    }
    if (Status s = check_device_pointer(p, name); !s) return s;
    std::lock_guard<std::mutex> lock(st.recent_mu);
    st.checked[st.checked_next++ % st.checked.size()] = p;
  }

  const VariantDef* def = st.def;
  Status result;
  result.fallback_reason = st.fallback_reason;
  kernels::LaunchArgs args = st.args;
  args.src = src;
  args.dst = dst;
  args.stream = stream;
  TmaMaps maps;
  const bool same_alignment =
      aligned16(src) == aligned16(st.map_src) && aligned16(dst) == aligned16(st.map_dst);
  if (st.needs_align16 && !same_alignment) {
    // Operands whose alignment differs from the plan's: the whole preparation again, on them.
    args.src_map = args.dst_map = nullptr;
    if (std::string why = planned_needs(st.req, *def, st.caps, &args, &maps); !why.empty()) {
      if (!st.is_auto && !st.req.options.allow_fallback) return fallback_refusal(*def, why);
      if (st.unaligned_def == nullptr)
        return make_status(StatusCode::kUnsupported, "variant '" + def->info.token +
                                                         "' cannot run these operands: " + why +
                                                         "; no other technique can");
      def = st.unaligned_def;
      args.src_map = args.dst_map = nullptr;
      result.fallback_reason = why;
    }
  } else if ((st.src_map || st.dst_map) && (src != st.map_src || dst != st.map_dst)) {
    // The plan's maps with the operands' addresses (cuTensorMapReplaceAddress), or the same
    // made for these operands recently.
    bool found = false;
    {
      std::lock_guard<std::mutex> lock(st.recent_mu);
      for (const PlanState::Recent& r : st.recent)
        if (r.src == src && r.dst == dst) {
          maps = r.maps;
          found = true;
          break;
        }
    }
    if (found) {
      if (st.src_map) args.src_map = &maps.src;
      if (st.dst_map) args.dst_map = &maps.dst;
    }
    // Each map of the plan with the operand's address.
    auto swapped = [&](const CUtensorMap& planned, const void* planned_at, const void* at,
                       const char* side, CUtensorMap* out) -> Status {
      *out = planned;
      if (at == planned_at) return {};
      Status why;
      if (replace_address_unchecked(out, at, &why) == CUDA_SUCCESS) return {};
      return why.ok() ? make_status(
                            StatusCode::kCudaError,
                            std::string("cuTensorMapReplaceAddress failed on the ") + side + " map")
                      : why;
    };
    if (!found && st.src_map) {
      if (Status s = swapped(st.maps.src, st.map_src, src, "src", &maps.src); !s) return s;
      args.src_map = &maps.src;
    }
    if (!found && st.dst_map) {
      if (Status s = swapped(st.maps.dst, st.map_dst, dst, "dst", &maps.dst); !s) return s;
      args.dst_map = &maps.dst;
    }
    if (!found) {
      std::lock_guard<std::mutex> lock(st.recent_mu);
      PlanState::Recent& r = st.recent[st.recent_next++ % st.recent.size()];
      r.src = src;
      r.dst = dst;
      r.maps = maps;
    }
  } else if (st.src_map || st.dst_map) {  // the operands the maps were encoded for
    if (st.src_map) args.src_map = &st.maps.src;
    if (st.dst_map) args.dst_map = &st.maps.dst;
  }
  const std::string& token = def->info.token;
  result.variant = token;
  auto failed = [&](cudaError_t err, const char* what) {
    Status s = cuda_status(err, (std::string(what) + " '" + token + "'").c_str());
    s.variant = token;
    s.fallback_reason = result.fallback_reason;
    return s;
  };
  if (const cudaError_t err = def->launch(args); err != cudaSuccess) {
    if (is_sticky_error(err)) {  // an earlier fault: say so, not "launching failed"
      Status s = make_status(StatusCode::kCudaError, sticky_error_text(st.caps.device, err));
      s.variant = token;
      return s;
    }
    return failed(err, "launching");
  }
  if (synchronize)
    if (const cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess)
      return failed(err, "running");
  return result;
}

}  // namespace tmakit::detail
