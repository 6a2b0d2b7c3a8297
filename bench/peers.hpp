// The libraries a user would pick instead of tmakit, as benchmark peers: each prepares a call
// outside the timed region (descriptors, plans) and then launches it, asynchronously, on the
// default stream. Every peer's output is verified bit for bit before it is timed, like the
// techniques'; the inputs are integer-valued floats of the peer's type
// (fill_peer_values_range), so alpha = 1 changes no bit.
//
//   memcpy         cudaMemcpyAsync D2D of the same bytes: the copy roofline
//   cublas_geam    cuBLAS geam with OP_T: S (4 B), D (8 B), Z (16 B); no batched form
//   cublas_geam_c  the same with C (complex fp32, 8 B)
//   cublaslt       cublasLtMatrixTransform, TRANSA = T, row-major layouts: 8I (1 B), 16BF
//                  (2 B), 32F (4 B), 64F (8 B), C_64F (16 B); batches by batch count + stride
//   cutensor       cutensorPermute (b,i,j) -> (b,j,i), or any permutation (PeerCall::perm):
//                  16BF, 32F, 64F, C_64F (cuTENSOR has no 1-byte type) (built only when
//                  CMake found cuTENSOR: TMAKIT_HAVE_CUTENSOR); accumulating:
//                  cutensorElementwiseBinaryExecute, D = A^perm + C with C = D = dst
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <tmakit/tmakit.hpp>

namespace tmakit::bench {

// One dense batch of row-major rows x cols matrices (dst: cols x rows; a copy: rows x cols).
struct PeerCall {
  const void* src = nullptr;
  void* dst = nullptr;
  std::int64_t batch = 1, rows = 0, cols = 0;
  int elem_bytes = 0;
  // Transpose-accumulate with alpha = beta = 1: dst += src^T (geam's B = C = dst, cuBLASLt's
  // B = C = dst, cuTENSOR's elementwise binary with C = D = dst). memcpy has no such form.
  bool accumulate = false;
  // A permutation of rank extents->size() instead (tmakit/permute.hpp's convention: extents of
  // src outermost first, dst dimension d = src dimension (*perm)[d], both dense); only
  // cutensor and memcpy take it. batch, rows and cols are then unused.
  const std::vector<std::int64_t>* extents = nullptr;
  const std::vector<int>* perm = nullptr;
};

class Peer {
 public:
  virtual ~Peer() = default;
  virtual const char* token() const = 0;
  virtual bool is_copy() const { return false; }
  // Empty when the peer runs this call, else why not (the benchmark's skip message).
  virtual std::string unsupported(const PeerCall& call) const = 0;
  // The data type it moves at this element size, e.g. "fp32", "bf16", "complex fp64".
  virtual std::string type_name(int elem_bytes) const = 0;
  // Builds what launch() needs for this call (descriptors, plans): outside the timed region.
  virtual Status prepare(const PeerCall& call) = 0;
  virtual Status launch() = 0;
};

// Every peer this build has, in benchmark order (memcpy first). `cutensor_context` is set to
// the cuTENSOR version in use, or "not found" (no cuTENSOR at build time), or why it failed.
std::vector<std::unique_ptr<Peer>> make_peers(std::string* cutensor_context);

}  // namespace tmakit::bench
