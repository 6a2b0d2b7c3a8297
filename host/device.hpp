// Cheap per-call device facts for the dispatcher, cached per device index (thread-safe).
#pragma once
#include <tmakit/tmakit.hpp>

namespace tmakit {

struct DeviceCaps {
  int device = 0;
  int cc = 0;  // major*10 + minor
  int sm_count = 0;
};

Status current_device_caps(DeviceCaps* caps);

}  // namespace tmakit
