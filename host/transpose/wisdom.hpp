// Wisdom: the techniques measured fastest, per GPU model, driver and problem (the store behind
// tmakit/plan.hpp's load_wisdom / save_wisdom). Pure host code: the GPU key is passed in, so
// the file format, the other-GPU rule and the corrupt-file errors are testable without a GPU.
//
// The file (version 1), UTF-8 text, one record per line, fields separated by tabs:
//
//   tmakit-wisdom 1
//   # comment lines and blank lines are ignored
//   gpu=NVIDIA H100 80GB HBM3<TAB>sms=132<TAB>mem_khz=2619000<TAB>driver=13000<TAB>
//     problem=transpose auto e2 4096x4096 b1 ld4096,4096 bs16777216,16777216 a16 tma
//     <TAB>variant=smem_wide<TAB>us=41.250<TAB>candidates=14
//   end 1
//
// (one line per record; wrapped here). `end N` closes the file with the record count, so a file
// cut short at a line boundary is caught as well as one cut inside a line.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <tmakit/plan.hpp>

namespace tmakit {

// What makes two GPUs the same for a decision: the model, its SM count and memory clock (an
// H100 SXM and PCIe differ there), and the driver.
struct GpuKey {
  std::string name;
  int sm_count = 0;
  int mem_clock_khz = 0;
  int driver_version = 0;
  bool operator<(const GpuKey& o) const;
  bool operator==(const GpuKey& o) const;
  std::string describe() const;  // "NVIDIA H100 80GB HBM3 (132 SMs, memory 2619 MHz, driver 13.0)"
};

struct WisdomEntry {
  std::string variant;  // the technique measured fastest
  double us = 0;        // its median, microseconds
  int candidates = 0;   // how many techniques were timed
};

class WisdomStore {
 public:
  // Nullptr when there is no entry for this GPU and problem.
  bool find(const GpuKey& gpu, const std::string& problem, WisdomEntry* out) const;
  void record(const GpuKey& gpu, const std::string& problem, const WisdomEntry& entry);
  // Parses `text` whole, then merges it; on any error nothing is merged and the Status names
  // `origin` and the line. `current` counts the entries that the current GPU will use.
  Status import_text(const std::string& text, const std::string& origin, const GpuKey* current,
                     WisdomLoad* loaded);
  std::string export_text() const;
  void clear();
  int size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<GpuKey, std::string>, WisdomEntry> entries_;
};

// The process's store (tmakit/plan.hpp's functions use it). The first call reads the file that
// TMAKIT_WISDOM names, if set; an error there is printed once to stderr and the file ignored.
WisdomStore& wisdom_store();

// After a measurement the process's default tuning made: the wisdom written back to the file
// TMAKIT_WISDOM names, if any (a failure is one warning on stderr).
void save_measured_wisdom();

// The current device's key (kNoDevice without one).
Status current_gpu_key(GpuKey* key);

}  // namespace tmakit
