// Links against the installed tmakit::tmakit and transposes a 3x5 float matrix. Without a GPU
// it prints why and exits 0 (the build and link are what this checks), unless
// TMAKIT_REQUIRE_GPU=1.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <tmakit/tmakit.hpp>

int main() {
  const bool require =
      std::getenv("TMAKIT_REQUIRE_GPU") && std::strcmp(std::getenv("TMAKIT_REQUIRE_GPU"), "1") == 0;
  tmakit::DeviceInfo dev;
  if (tmakit::Status s = tmakit::query_device(&dev); !s) {
    std::printf("consumer: linked tmakit; no GPU to run on: %s\n", s.message.c_str());
    return require ? 1 : 0;
  }
  const int rows = 3, cols = 5;
  std::vector<float> h(rows * cols), out(rows * cols), ref(rows * cols);
  for (int i = 0; i < rows * cols; ++i) h[i] = static_cast<float>(i);
  void *in = nullptr, *out_buf = nullptr;
  cudaMalloc(&in, sizeof(float) * rows * cols);
  cudaMalloc(&out_buf, sizeof(float) * rows * cols);
  float* d_in = static_cast<float*>(in);
  float* d_out = static_cast<float*>(out_buf);
  cudaMemcpy(d_in, h.data(), sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
  tmakit::TransposeOptions opt;
  opt.synchronize = true;
  const tmakit::Status s = tmakit::transpose(d_in, d_out, rows, cols, opt);
  cudaMemcpy(out.data(), d_out, sizeof(float) * rows * cols, cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  tmakit::reference_transpose(h.data(), ref.data(), rows, cols, sizeof(float));
  if (!s || out != ref) {
    std::printf("consumer: transpose failed: %s\n", s.ok() ? "wrong result" : s.message.c_str());
    return 1;
  }
  std::printf("consumer: %s transposed 3x5 correctly on %s\n", s.variant.c_str(), dev.name.c_str());
  return 0;
}
