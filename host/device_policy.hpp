// The per-device policy (kernels/common/device_policy.hpp): what the launchers decide per GPU,
// chosen once per device from rows of measured GPUs, with TMAKIT_POLICY's overrides applied here
// and nowhere else.
#pragma once
#include <string>
#include <kernels/common/device_policy.hpp>

namespace tmakit {

// The policy of a device with this peak DRAM bandwidth (GB/s; 0: unknown), TMAKIT_POLICY's
// overrides applied; *key (optional) names it for the plans' and wisdom's problem key: the
// row's name, then "+" and the overrides as given ("hbm3", "hbm3e+sector_bytes=64").
DevicePolicy device_policy(double dram_gbps, std::string* key = nullptr);

// TMAKIT_POLICY=FIELD=VALUE[,FIELD=VALUE...], read once per process (reload_env_settings reads
// it again). Fields, each checked against its range:
//   sector_column_tiles 0|1, sector_bytes 16|32|64|128, flat_unit_bytes 4096..32768 (every
//   flat unit), flat_skinny_unit_bytes 4096..32768, flat_table_max_rows 0..128,
//   flat_batch_table_bytes 0..8, flat_max_matrix_bytes 0..98304, strip_tile RxC,
//   bulk_flat_stages 1..4, bulk_flat_ctas 1..8, bulk_flat_unit_bytes 4096..65536.
// Empty when the text is valid, else why (the variable is then ignored, with one warning).
std::string apply_policy_overrides(const std::string& text, DevicePolicy* policy);

// Re-reads TMAKIT_POLICY (tests; host/device.cpp's reload_env_settings calls it).
void reload_policy_overrides();

}  // namespace tmakit
