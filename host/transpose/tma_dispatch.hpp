// Can this call run on TMA? The dispatcher asks here before launching a TMA technique; any
// "no" comes back as a sentence for Status::fallback_reason.
#pragma once
#include <string>
#include <host/device.hpp>
#include <host/transpose/registry.hpp>
#include <kernels/launchers.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {

struct TmaMaps {
  CUtensorMap src{};  // CUtensorMap is alignas(128) itself
  CUtensorMap dst{};
};

// The unsigned tensor-map type of an element size (1, 2, 8 bytes; else 4): a copy or a
// transpose moves bits.
TmaType tma_unsigned_type(int bytes);

// Empty when TMA techniques can run at all on a device with these caps; else why not: the
// switch (allow_tma / TMAKIT_DISABLE_TMA), compute capability 9.0, sm_90 code in this build,
// the driver's encoder.
std::string tma_unavailable(bool allow_tma, const DeviceCaps& caps);

// Empty when `def` (a planned technique: TMA, 1-D bulk copies, cp.async) can run `args` on a
// device with these caps; the maps it needs are then encoded into *maps and args->src_map /
// dst_map point at them. Otherwise the reason, naming the rule or condition that failed.
// Checks, in order: tma_unavailable() (TMA-unit techniques; cp.async: compute capability
// 8.0), 32-bit coordinates, the 16-byte vector sides, whole 16-byte rows, then every
// tensor-map rule of each map.
std::string prepare_tma(const VariantDef& def, bool allow_tma, const DeviceCaps& caps,
                        kernels::LaunchArgs* args, TmaMaps* maps);

}  // namespace tmakit
