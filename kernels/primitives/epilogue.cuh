// What a transpose kernel does with each destination element it has gathered: store it
// (StoreCopy, the transpose), or read the element already there and store
// alpha * gathered + beta * old (StoreAxpby, transpose-accumulate; kernels/primitives/num.cuh's
// arithmetic). A kernel templated on the epilogue is one tile walk for both operations: the
// accumulate techniques (flat_accumulate, sector_accumulate) are the transpose's best kernels for
// their shapes (smem_flat, smem_sector) with StoreAxpby, not parallel copies of them;
// tma_accumulate combines in shared memory with StoreAxpby's combine_chunk.
//
// Both epilogues give the same three operations:
//   elem(p, v)        one element at p
//   load / combine    an element's two halves, so a kernel can issue every dst read of a tile
//                     before any arithmetic (loads in flight); StoreCopy's are no-ops
//   load_chunk(p), store_chunk<T>(p, v, old)
//                     the same for one aligned 16-byte chunk (v: its 16 / sizeof(T) elements);
//                     StoreAxpby's combine_chunk(v, old) is the chunk's arithmetic alone
// kReadsDst says whether dst is read (StoreAxpby with beta != 0).
#pragma once
#include <cstdint>
#include <kernels/primitives/num.cuh>

namespace tmakit {

struct StoreCopy {
  static constexpr bool kReadsDst = false;
  template <class T>
  __device__ __forceinline__ T load(const T*) const {
    return T{};
  }
  template <class T>
  __device__ __forceinline__ T combine(T v, T) const {
    return v;
  }
  template <class T>
  __device__ __forceinline__ void elem(T* p, T v) const {
    *p = v;
  }
  __device__ __forceinline__ uint4 load_chunk(const uint4*) const { return uint4{}; }
  template <class T>
  __device__ __forceinline__ void store_chunk(uint4* p, uint4 v, uint4) const {
    *p = v;
  }
};

// dst = alpha * v + beta * dst in N's arithmetic; BetaZero: dst is never read (BLAS semantics:
// NaN or garbage in dst does not propagate).
template <NumType N, bool BetaZero>
struct StoreAxpby {
  using Bits = typename Num<N>::Bits;
  static constexpr bool kReadsDst = !BetaZero;
  Scalars<N> sc;

  __device__ __forceinline__ Bits load(const Bits* p) const {
    if constexpr (BetaZero) return Bits{};
    return *p;
  }
  __device__ __forceinline__ Bits combine(Bits v, Bits old) const {
    return num_axpby<N, BetaZero>(v, old, sc);
  }
  __device__ __forceinline__ void elem(Bits* p, Bits v) const { *p = combine(v, load(p)); }
  __device__ __forceinline__ uint4 load_chunk(const uint4* p) const {
    if constexpr (BetaZero) return uint4{};
    return *p;
  }
  // alpha * v + beta * prev, element by element, for a 16-byte chunk of N's elements.
  __device__ __forceinline__ uint4 combine_chunk(uint4 v, uint4 prev) const {
    constexpr int V = 16 / sizeof(Bits);
    union U {
      uint4 v;
      Bits e[V];
    };
    U in, old, out;
    in.v = v;
    old.v = prev;
#pragma unroll
    for (int j = 0; j < V; ++j) out.e[j] = combine(in.e[j], old.e[j]);
    return out.v;
  }
  template <class T>
  __device__ __forceinline__ void store_chunk(uint4* p, uint4 v, uint4 prev) const {
    static_assert(sizeof(T) == sizeof(Bits), "the chunk's elements are N's");
    *p = combine_chunk(v, prev);
  }
};

// f(StoreAxpby<N, beta == 0>) for the call's type and scalars (cudaErrorInvalidValue for none).
template <class F>
cudaError_t dispatch_axpby(NumType n, double alpha, double beta, F&& f) {
  return dispatch_num_type(n, [&](auto t) {
    constexpr NumType N = decltype(t)::value;
    const Scalars<N> sc = Scalars<N>::make(alpha, beta);
    if (beta == 0.0) return f(StoreAxpby<N, true>{sc});
    return f(StoreAxpby<N, false>{sc});
  });
}

}  // namespace tmakit
