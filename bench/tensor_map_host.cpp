// Host time per call of building a tensor map against pointing an encoded one at a new
// address: tmakit's encode() (device query, every rule, the driver's encode) and
// replace_address() (the address rules, cuTensorMapReplaceAddress), and the bare driver calls
// under them, for a tiled map (a 4096 x 4096 fp32 matrix, 32 x 32 boxes, 128B swizzle) and an
// im2col map (the worked example: 3 x 7 x 9 x 8 fp32, 32 pixels of 8 channels). 10,000 calls
// per repetition on a host clock (Google Benchmark's real time).
#include <benchmark/benchmark.h>
#include <string>
#include <type_traits>
#include <host/tensor_map/driver.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit::bench {
namespace {

alignas(1024) unsigned char g_a[4096], g_b[4096];  // never dereferenced: addresses only

TensorMapSpec tiled() {
  return matrix_spec(TmaType::kF32, g_a, 4096, 4096, 16384, 32, 32, TmaSwizzle::k128B);
}
Im2colSpec im2col() {
  return conv2d_im2col_spec(TmaType::kF32, g_a, 3, 7, 9, 8, 3, 5, 1, 2, 8, 32);
}

template <class Spec>
void run(benchmark::State& st, const Spec& spec, const std::string& what) {
  alignas(64) CUtensorMap map;
  if (Status s = encode(spec, &map); !s) {
    st.SkipWithError(s.message.c_str());
    return;
  }
  Status why;
  bool flip = false;
  for (auto _ : st) {
    const void* addr = (flip = !flip) ? g_b : g_a;
    Status s;
    CUresult r = CUDA_SUCCESS;
    if (what == "encode")
      s = encode(spec, &map);
    else if (what == "replace")
      s = replace_address(&map, spec, addr);
    else if (what == "replace_driver")
      r = replace_address_unchecked(&map, addr, &why);
    else if constexpr (std::is_same_v<Spec, Im2colSpec>)
      r = encode_im2col_unchecked(spec, &map, &why);
    else
      r = encode_unchecked(spec, &map, &why);
    if (!s.ok() || r != CUDA_SUCCESS) {
      st.SkipWithError((what + " failed: " + s.message + curesult_name(r)).c_str());
      return;
    }
    benchmark::DoNotOptimize(map);
  }
}

}  // namespace

void register_tensor_map_host() {
  for (const char* what : {"encode", "encode_driver", "replace", "replace_driver"}) {
    benchmark::RegisterBenchmark((std::string("tensor_map_host/") + what + "/tiled").c_str(),
                                 [=](benchmark::State& st) { run(st, tiled(), what); })
        ->Iterations(10000)
        ->Repetitions(3)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("tensor_map_host/") + what + "/im2col").c_str(),
                                 [=](benchmark::State& st) { run(st, im2col(), what); })
        ->Iterations(10000)
        ->Repetitions(3)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace tmakit::bench
