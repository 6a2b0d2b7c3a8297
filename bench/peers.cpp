#include "peers.hpp"

#include <cstring>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuComplex.h>
#include <host/error.hpp>
#if defined(TMAKIT_HAVE_CUTENSOR)
#include <cutensor.h>
#endif

namespace tmakit::bench {
namespace {

Status lib_error(const char* lib, const char* what, int code, const char* text = nullptr) {
  return make_status(StatusCode::kCudaError,
                     std::string(lib) + " " + what + " failed: status " + std::to_string(code) +
                         (text != nullptr ? std::string(" (") + text + ")" : std::string()));
}

// The data type a library peer moves at each element size (and its name in the report): the
// types whose values fill_peer_values_range() makes integer-valued.
struct PeerType {
  cudaDataType_t type;
  const char* name;
};
PeerType peer_type(int elem_bytes) {
  switch (elem_bytes) {
    case 1:
      return {CUDA_R_8I, "int8 (8I)"};
    case 2:
      return {CUDA_R_16BF, "bf16 (16BF)"};
    case 4:
      return {CUDA_R_32F, "fp32 (32F)"};
    case 8:
      return {CUDA_R_64F, "fp64 (64F)"};
    default:
      return {CUDA_C_64F, "complex fp64 (C_64F)"};
  }
}

// alpha = 1 as a library reads it from host memory: a float for fp32 scalars, else a double (the
// real part of a complex double; the imaginary part stays 0). `buf` holds 16 bytes.
void set_alpha_one(unsigned char* buf, bool fp32_scalar) {
  std::memset(buf, 0, 16);
  if (fp32_scalar) {
    const float one = 1;
    std::memcpy(buf, &one, sizeof one);
  } else {
    const double one = 1;
    std::memcpy(buf, &one, sizeof one);
  }
}

// ---------------------------------------------------------------------------------------------
class MemcpyPeer final : public Peer {
 public:
  const char* token() const override { return "memcpy"; }
  bool is_copy() const override { return true; }
  std::string unsupported(const PeerCall& c) const override {
    return c.accumulate ? "memcpy does not accumulate" : "";
  }
  std::string type_name(int e) const override { return std::to_string(e) + "-byte"; }
  Status prepare(const PeerCall& c) override {
    call_ = c;
    return {};
  }
  Status launch() override {
    const std::size_t bytes = static_cast<std::size_t>(call_.batch * call_.rows * call_.cols) *
                              static_cast<std::size_t>(call_.elem_bytes);
    return cuda_status(
        cudaMemcpyAsync(call_.dst, call_.src, bytes, cudaMemcpyDeviceToDevice, nullptr),
        "cudaMemcpyAsync");
  }

 private:
  PeerCall call_;
};

// ---------------------------------------------------------------------------------------------
// Row-major rows x cols (lda = cols) is column-major cols x rows; C = op(A) = A^T is
// column-major rows x cols (ldc = rows), i.e. row-major cols x rows.
class GeamPeer final : public Peer {
 public:
  GeamPeer(cublasHandle_t h, bool complex_at_8) : h_(h), complex_at_8_(complex_at_8) {}
  const char* token() const override { return complex_at_8_ ? "cublas_geam_c" : "cublas_geam"; }
  std::string unsupported(const PeerCall& c) const override {
    if (complex_at_8_ ? c.elem_bytes != 8
                      : (c.elem_bytes != 4 && c.elem_bytes != 8 && c.elem_bytes != 16))
      return std::string("cuBLAS geam has no ") + (complex_at_8_ ? "complex " : "") +
             std::to_string(c.elem_bytes) + "-byte type" +
             (complex_at_8_ ? " (cublas_geam_c is Cgeam, 8 bytes)" : "");
    if (c.batch > 1) return "cuBLAS geam has no batched form";
    if (c.accumulate && complex_at_8_) return "accumulate runs geam on real types only";
    if (c.rows > INT32_MAX || c.cols > INT32_MAX) return "cuBLAS geam takes int dimensions";
    return {};
  }
  std::string type_name(int e) const override {
    if (complex_at_8_) return "complex fp32 (C)";
    return e == 4 ? "fp32 (S)" : e == 8 ? "fp64 (D)" : "complex fp64 (Z)";
  }
  Status prepare(const PeerCall& c) override {
    call_ = c;
    return {};
  }
  Status launch() override {
    const int m = static_cast<int>(call_.rows), n = static_cast<int>(call_.cols);
    cublasStatus_t r;
    if (complex_at_8_) {
      const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
      r = cublasCgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                      static_cast<const cuComplex*>(call_.src), n, &zero,
                      static_cast<const cuComplex*>(call_.dst), m,
                      static_cast<cuComplex*>(call_.dst), m);
    } else if (call_.elem_bytes == 4) {
      const float one = 1, beta = call_.accumulate ? 1.0f : 0.0f;
      r = cublasSgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                      static_cast<const float*>(call_.src), n, &beta,
                      static_cast<const float*>(call_.dst), m, static_cast<float*>(call_.dst), m);
    } else if (call_.elem_bytes == 8) {
      const double one = 1, beta = call_.accumulate ? 1.0 : 0.0;
      r = cublasDgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                      static_cast<const double*>(call_.src), n, &beta,
                      static_cast<const double*>(call_.dst), m, static_cast<double*>(call_.dst), m);
    } else {
      const cuDoubleComplex one = make_cuDoubleComplex(1, 0),
                            zero = make_cuDoubleComplex(call_.accumulate ? 1 : 0, 0);
      r = cublasZgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                      static_cast<const cuDoubleComplex*>(call_.src), n, &zero,
                      static_cast<const cuDoubleComplex*>(call_.dst), m,
                      static_cast<cuDoubleComplex*>(call_.dst), m);
    }
    return r == CUBLAS_STATUS_SUCCESS ? Status{}
                                      : lib_error("cuBLAS", "geam", r, cublasGetStatusString(r));
  }

 private:
  cublasHandle_t h_;
  bool complex_at_8_;
  PeerCall call_;
};

// ---------------------------------------------------------------------------------------------
// cublasLtMatrixTransform: C = alpha * op(A) with row-major layouts, so A is described as it is
// stored (rows x cols, ld = cols) and C as cols x rows (ld = rows). B is not read (beta = 0).
class LtPeer final : public Peer {
 public:
  explicit LtPeer(cublasLtHandle_t h) : h_(h) {}
  ~LtPeer() override { release(); }
  const char* token() const override { return "cublaslt"; }
  std::string unsupported(const PeerCall& c) const override {
    if (c.batch > INT32_MAX) return "cuBLASLt batch counts are int32";
    if (c.accumulate && c.elem_bytes == 1) return "accumulating int8 is not compared";
    return {};
  }
  std::string type_name(int e) const override { return peer_type(e).name; }
  Status prepare(const PeerCall& c) override {
    release();
    call_ = c;
    const cudaDataType_t type = peer_type(c.elem_bytes).type;
    // Scale type: fp32 for 8I, 16BF and 32F; the element type for 64F and C_64F.
    const cudaDataType_t scale = c.elem_bytes <= 4 ? CUDA_R_32F : type;
    set_alpha_one(alpha_, scale == CUDA_R_32F);
    if (c.accumulate)
      set_alpha_one(beta_, scale == CUDA_R_32F);  // beta = 1: C = A^T + B, B = C = dst
    else
      std::memset(beta_, 0, sizeof beta_);
    cublasStatus_t r = cublasLtMatrixTransformDescCreate(&desc_, scale);
    const cublasOperation_t op_t = CUBLAS_OP_T;
    if (r == CUBLAS_STATUS_SUCCESS)
      r = cublasLtMatrixTransformDescSetAttribute(desc_, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA,
                                                  &op_t, sizeof op_t);
    if (r == CUBLAS_STATUS_SUCCESS) r = layout(&a_, type, c.rows, c.cols);
    if (r == CUBLAS_STATUS_SUCCESS) r = layout(&c_, type, c.cols, c.rows);
    return r == CUBLAS_STATUS_SUCCESS
               ? Status{}
               : lib_error("cuBLASLt", "descriptor setup", r, cublasLtGetStatusString(r));
  }
  Status launch() override {
    const cublasStatus_t r = cublasLtMatrixTransform(
        h_, desc_, alpha_, call_.src, a_, beta_, call_.accumulate ? call_.dst : nullptr,
        call_.accumulate ? c_ : nullptr, call_.dst, c_, nullptr);
    return r == CUBLAS_STATUS_SUCCESS
               ? Status{}
               : lib_error("cuBLASLt", "cublasLtMatrixTransform", r, cublasLtGetStatusString(r));
  }

 private:
  cublasStatus_t layout(cublasLtMatrixLayout_t* l, cudaDataType_t type, std::int64_t rows,
                        std::int64_t cols) {
    cublasStatus_t r = cublasLtMatrixLayoutCreate(l, type, static_cast<std::uint64_t>(rows),
                                                  static_cast<std::uint64_t>(cols), cols);
    const cublasLtOrder_t order = CUBLASLT_ORDER_ROW;
    if (r == CUBLAS_STATUS_SUCCESS)
      r = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order);
    if (r == CUBLAS_STATUS_SUCCESS && call_.batch > 1) {
      const auto count = static_cast<std::int32_t>(call_.batch);
      const std::int64_t stride = rows * cols;  // elements
      r = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                           sizeof count);
      if (r == CUBLAS_STATUS_SUCCESS)
        r = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                             &stride, sizeof stride);
    }
    return r;
  }
  void release() {
    if (desc_ != nullptr) cublasLtMatrixTransformDescDestroy(desc_);
    if (a_ != nullptr) cublasLtMatrixLayoutDestroy(a_);
    if (c_ != nullptr) cublasLtMatrixLayoutDestroy(c_);
    desc_ = nullptr;
    a_ = c_ = nullptr;
  }
  cublasLtHandle_t h_;
  PeerCall call_;
  cublasLtMatrixTransformDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, c_ = nullptr;
  alignas(16) unsigned char alpha_[16], beta_[16];
};

// ---------------------------------------------------------------------------------------------
#if defined(TMAKIT_HAVE_CUTENSOR)
// cuTENSOR's first mode is the contiguous one: src [b][i][j] is modes (j, i, b) with strides
// (1, cols, rows*cols); dst [b][j][i] is modes (i, j, b) with strides (1, rows, rows*cols).
// A batch of one drops the b mode.
class CutensorPeer final : public Peer {
 public:
  explicit CutensorPeer(cutensorHandle_t h) : h_(h) {}
  ~CutensorPeer() override { release(); }
  const char* token() const override { return "cutensor"; }
  std::string unsupported(const PeerCall& c) const override {
    if (c.elem_bytes == 1) return "cutensorPermute has no 1-byte type";
    return {};
  }
  std::string type_name(int e) const override { return peer_type(e).name; }
  Status prepare(const PeerCall& c) override {
    release();
    call_ = c;
    const cudaDataType_t type = peer_type(c.elem_bytes).type;
    const cutensorComputeDescriptor_t compute =
        c.elem_bytes <= 4 ? CUTENSOR_COMPUTE_DESC_32F : CUTENSOR_COMPUTE_DESC_64F;
    std::uint32_t modes = c.batch > 1 ? 3 : 2;
    std::int64_t ext_a[8] = {c.cols, c.rows, c.batch}, str_a[8] = {1, c.cols, c.rows * c.cols};
    std::int64_t ext_b[8] = {c.rows, c.cols, c.batch}, str_b[8] = {1, c.rows, c.rows * c.cols};
    std::int32_t mode_a[8] = {'j', 'i', 'b'}, mode_b[8] = {'i', 'j', 'b'};
    if (c.extents != nullptr) {  // a permutation: modes innermost first, dense strides
      const auto& n = *c.extents;
      const auto& p = *c.perm;
      modes = static_cast<std::uint32_t>(n.size());
      std::int64_t sa = 1, sb = 1;
      for (std::uint32_t m = 0; m < modes; ++m) {
        const std::size_t k = modes - 1 - m;  // src dimension k is mode 'a' + k
        ext_a[m] = n[k], str_a[m] = sa, mode_a[m] = 'a' + static_cast<std::int32_t>(k);
        sa *= n[k];
        const int d = p[k];  // dst dimension k is src dimension p[k]
        ext_b[m] = n[d], str_b[m] = sb, mode_b[m] = 'a' + d;
        sb *= n[d];
      }
    }
    cutensorStatus_t r =
        cutensorCreateTensorDescriptor(h_, &a_, modes, ext_a, str_a, type, alignment(c.src));
    if (r == CUTENSOR_STATUS_SUCCESS)
      r = cutensorCreateTensorDescriptor(h_, &b_, modes, ext_b, str_b, type, alignment(c.dst));
    if (r == CUTENSOR_STATUS_SUCCESS)
      r = c.accumulate ? cutensorCreateElementwiseBinary(h_, &op_, a_, mode_a, CUTENSOR_OP_IDENTITY,
                                                         b_, mode_b, CUTENSOR_OP_IDENTITY, b_,
                                                         mode_b, CUTENSOR_OP_ADD, compute)
                       : cutensorCreatePermutation(h_, &op_, a_, mode_a, CUTENSOR_OP_IDENTITY, b_,
                                                   mode_b, compute);
    cudaDataType_t scalar = CUDA_R_32F;
    if (r == CUTENSOR_STATUS_SUCCESS)
      r = cutensorOperationDescriptorGetAttribute(
          h_, op_, CUTENSOR_OPERATION_DESCRIPTOR_SCALAR_TYPE, &scalar, sizeof scalar);
    if (r == CUTENSOR_STATUS_SUCCESS)
      r = cutensorCreatePlanPreference(h_, &pref_, CUTENSOR_ALGO_DEFAULT, CUTENSOR_JIT_MODE_NONE);
    if (r == CUTENSOR_STATUS_SUCCESS) r = cutensorCreatePlan(h_, &plan_, op_, pref_, 0);
    if (r != CUTENSOR_STATUS_SUCCESS)
      return lib_error("cuTENSOR", "permutation setup", r, cutensorGetErrorString(r));
    set_alpha_one(alpha_, scalar == CUDA_R_32F || scalar == CUDA_C_32F);
    return {};
  }
  Status launch() override {
    const cutensorStatus_t r =
        call_.accumulate ? cutensorElementwiseBinaryExecute(h_, plan_, alpha_, call_.src, alpha_,
                                                            call_.dst, call_.dst, nullptr)
                         : cutensorPermute(h_, plan_, alpha_, call_.src, call_.dst, nullptr);
    return r == CUTENSOR_STATUS_SUCCESS
               ? Status{}
               : lib_error("cuTENSOR", call_.accumulate ? "elementwise binary" : "cutensorPermute",
                           r, cutensorGetErrorString(r));
  }

 private:
  static std::uint32_t alignment(const void* p) {
    std::uint32_t a = 256;
    while (a > 1 && reinterpret_cast<std::uintptr_t>(p) % a != 0) a /= 2;
    return a;
  }
  void release() {
    if (plan_ != nullptr) cutensorDestroyPlan(plan_);
    if (pref_ != nullptr) cutensorDestroyPlanPreference(pref_);
    if (op_ != nullptr) cutensorDestroyOperationDescriptor(op_);
    if (a_ != nullptr) cutensorDestroyTensorDescriptor(a_);
    if (b_ != nullptr) cutensorDestroyTensorDescriptor(b_);
    plan_ = nullptr;
    pref_ = nullptr;
    op_ = nullptr;
    a_ = b_ = nullptr;
  }
  cutensorHandle_t h_;
  PeerCall call_;
  cutensorTensorDescriptor_t a_ = nullptr, b_ = nullptr;
  cutensorOperationDescriptor_t op_ = nullptr;
  cutensorPlanPreference_t pref_ = nullptr;
  cutensorPlan_t plan_ = nullptr;
  alignas(16) unsigned char alpha_[16];
};
#endif

}  // namespace

std::vector<std::unique_ptr<Peer>> make_peers(std::string* cutensor_context) {
  std::vector<std::unique_ptr<Peer>> peers;
  peers.push_back(std::make_unique<MemcpyPeer>());
  // The handles live as long as the process: the peers are made once per run.
  static cublasHandle_t blas = nullptr;
  if (blas == nullptr && cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) blas = nullptr;
  if (blas != nullptr) {
    peers.push_back(std::make_unique<GeamPeer>(blas, false));
    peers.push_back(std::make_unique<GeamPeer>(blas, true));
  }
  static cublasLtHandle_t lt = nullptr;
  if (lt == nullptr && cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) lt = nullptr;
  if (lt != nullptr) peers.push_back(std::make_unique<LtPeer>(lt));
#if defined(TMAKIT_HAVE_CUTENSOR)
  static cutensorHandle_t ct = nullptr;
  cutensorStatus_t r = CUTENSOR_STATUS_SUCCESS;
  if (ct == nullptr) r = cutensorCreate(&ct);
  if (r == CUTENSOR_STATUS_SUCCESS) {
    const std::size_t v = cutensorGetVersion();
    *cutensor_context = std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                        std::to_string(v % 100);
    peers.push_back(std::make_unique<CutensorPeer>(ct));
  } else {
    *cutensor_context = std::string("cutensorCreate failed: ") + cutensorGetErrorString(r);
  }
#else
  *cutensor_context = "not found";
#endif
  return peers;
}

}  // namespace tmakit::bench
