#include <host/cli/operands.hpp>

#include <host/error.hpp>

namespace tmakit::cli {

DeviceBuffer::~DeviceBuffer() {
  if (p != nullptr) cudaFree(p);
}

Status prepare_operands(const std::vector<unsigned char>& host_src, int l2_bytes, int warmup,
                        int iters, TimedOperands* out) {
  const std::size_t bytes = host_src.size();
  if (Status s = cuda_status(cudaMalloc(&out->src.p, bytes), "cudaMalloc(src)"); !s) return s;
  if (Status s = cuda_status(cudaMalloc(&out->dst.p, bytes), "cudaMalloc(dst)"); !s) return s;
  if (Status s = cuda_status(cudaMemcpy(out->src.p, host_src.data(), bytes, cudaMemcpyHostToDevice),
                             "cudaMemcpy(src)");
      !s)
    return s;
  if (Status s = out->flusher.init(static_cast<std::size_t>(l2_bytes)); !s) return s;
  void* src = out->src.p;
  void* dst = out->dst.p;
  return time_launches(
      [&] {
        return cuda_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, nullptr),
                           "cudaMemcpyAsync");
      },
      warmup, iters, &out->flusher, nullptr, &out->memcpy);
}

}  // namespace tmakit::cli
