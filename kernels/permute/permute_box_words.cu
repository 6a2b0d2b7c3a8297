// permute_tile's box walk in words: the same boxes (kernels/common/permute_box.hpp), loaded and
// stored in 4-16-byte words instead of elements where the strides allow (box_vector_elems).
// What it adds: at 1-4-byte elements the element walk is bound by instruction issue (Nsight
// Compute: 63-77% issue active with DRAM 6-44% busy; docs/permute.md, section 4), one load,
// one shared store and one table read per element. Here a thread loads a word of WS elements
// along src's contiguous dimension and stores it to shared memory whole; on the store side it
// gathers WD elements that are consecutive along dst's contiguous dimension (a shared stride
// apart in the box's src-order layout), packs them into a word and stores it. The tables hold
// one entry per word, not per element. Either side may stay at one element per word (an odd
// extent there).
#include <cstring>
#include <type_traits>
#include <kernels/common/permute_box.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/box_walk.cuh>

namespace tmakit {
namespace {

template <int B>
struct Bytes {
  using type = std::conditional_t<
      B == 1, std::uint8_t,
      std::conditional_t<
          B == 2, std::uint16_t,
          std::conditional_t<B == 4, std::uint32_t, std::conditional_t<B == 8, uint2, uint4>>>>;
};

constexpr unsigned kWordThreads = 256;

// Box element t in src order is shared element t (dimension 0, src's contiguous one, has shared
// stride 1). Src word s: src-order elements s * WS .. s * WS + WS - 1, consecutive along box
// dimension 0 in src and in shared memory. Dst word d: dst-order elements d * WD .., consecutive
// along box dimension dst_order[0] in dst, `step` apart in shared memory.
template <int E, int VS, int VD>
__global__ void __launch_bounds__(kWordThreads)
    permute_box_words_kernel(const typename Bytes<E>::type* __restrict__ src,
                             typename Bytes<E>::type* __restrict__ dst, BoxPlan p, bool swizzle) {
  using T = typename Bytes<E>::type;
  using TS = typename Bytes<VS>::type;
  using TD = typename Bytes<VD>::type;
  constexpr std::uint32_t WS = VS / E, WD = VD / E;
  constexpr int K = VS >= 8 ? 4 : 8;  // src words in flight per thread: 32-64 bytes
  extern __shared__ __align__(16) unsigned char permute_box_words_smem[];
  const std::uint32_t V = p.volume, NS = V / WS, ND = V / WD;
  unsigned char* buf = permute_box_words_smem;
  auto* ld_off =
      reinterpret_cast<std::int32_t*>(permute_box_words_smem + (V * E + 127) / 128 * 128);
  std::int32_t* st_off = ld_off + NS;
  auto* st_idx = reinterpret_cast<std::uint16_t*>(st_off + ND);
  std::uint16_t* ld_cut = st_idx + ND;
  std::uint16_t* st_cut = ld_cut + NS;
  const int cut0 = p.cut[0], cut1 = p.cut[1];
  const std::uint32_t step = p.smem_stride[p.dst_order[0]];
  const unsigned tid = threadIdx.x;
  auto cuts_of = [&](const std::uint32_t* c) {
    return static_cast<std::uint16_t>((cut0 >= 0 ? c[cut0] : 0) | (cut1 >= 0 ? c[cut1] << 8 : 0));
  };
  for (std::uint32_t s = tid; s < NS; s += kWordThreads) {
    std::uint32_t c[kBoxMaxDims];
    box_coords_src(p, s * WS, c);
    std::int64_t off = 0;
#pragma unroll
    for (int u = 0; u < kBoxMaxDims; ++u)
      if (u < p.dims) off += c[u] * p.ss[u];
    ld_off[s] = static_cast<std::int32_t>(off);
    ld_cut[s] = cuts_of(c);
  }
  for (std::uint32_t d = tid; d < ND; d += kWordThreads) {
    std::uint32_t c[kBoxMaxDims];
    box_coords_dst(p, d * WD, c);
    std::int64_t off = 0;
    std::uint32_t at = 0;
#pragma unroll
    for (int u = 0; u < kBoxMaxDims; ++u)
      if (u < p.dims) {
        off += c[u] * p.ds[u];
        at += c[u] * p.smem_stride[u];
      }
    st_off[d] = static_cast<std::int32_t>(off);
    st_idx[d] = static_cast<std::uint16_t>(at);
    st_cut[d] = cuts_of(c);
  }
  __syncthreads();
  __shared__ __align__(8) unsigned char origin_bytes[2 * sizeof(BoxOrigin)];
  for_each_box(p, p.origin_once, reinterpret_cast<BoxOrigin*>(origin_bytes),
               [&](const BoxOrigin& at) {
                 const std::int64_t so = at.src, dof = at.dst;
                 const std::uint32_t lim0 = at.lim0, lim1 = at.lim1;
                 const bool whole = box_is_whole(p, at);
                 // A word is inside the tensor exactly when its first element is
                 // (box_vector_elems).
                 auto walk = [&](auto whole_box, auto swizzled) {
                   constexpr bool kWhole = decltype(whole_box)::value;
                   // Byte offset of box element i in shared memory. Swizzled: the 16-byte chunks of
                   // each 128-byte row XORed with the row's index (mod 8), so dst words whose first
                   // elements lie a multiple of 128 bytes apart (consecutive threads on the store
                   // side) start in different banks instead of all in one; a word never straddles a
                   // chunk.
                   auto at = [](std::uint32_t i) {
                     const std::uint32_t a = i * E;
                     return decltype(swizzled)::value ? a ^ (((a >> 7) & 7u) << 4) : a;
                   };
                   auto inside = [&](const std::uint16_t* cut, std::uint32_t i) {
                     return kWhole || ((cut[i] & 255u) < lim0 && (cut[i] >> 8) < lim1);
                   };
                   const T* s0 = src + so;
                   for (std::uint32_t w0 = tid; w0 < NS; w0 += K * kWordThreads) {
                     TS v[K];
#pragma unroll
                     for (int k = 0; k < K; ++k) {
                       const std::uint32_t w = w0 + k * kWordThreads;
                       if (w < NS && inside(ld_cut, w))
                         v[k] = *reinterpret_cast<const TS*>(s0 + ld_off[w]);
                     }
#pragma unroll
                     for (int k = 0; k < K; ++k) {
                       const std::uint32_t w = w0 + k * kWordThreads;
                       if (w < NS && inside(ld_cut, w))
                         *reinterpret_cast<TS*>(buf + at(w * WS)) = v[k];
                     }
                   }
                   __syncthreads();
                   T* d0 = dst + dof;
                   for (std::uint32_t w = tid; w < ND; w += kWordThreads)
                     if (inside(st_cut, w)) {
                       const std::uint32_t from = st_idx[w];
                       T e[WD];
#pragma unroll
                       for (std::uint32_t j = 0; j < WD; ++j)
                         e[j] = *reinterpret_cast<const T*>(buf + at(from + j * step));
                       TD out;
                       std::memcpy(&out, e, sizeof(out));
                       *reinterpret_cast<TD*>(d0 + st_off[w]) = out;
                     }
                   __syncthreads();
                 };
                 if (swizzle) {
                   if (whole)
                     walk(std::true_type{}, std::true_type{});
                   else
                     walk(std::false_type{}, std::true_type{});
                 } else {
                   if (whole)
                     walk(std::true_type{}, std::false_type{});
                   else
                     walk(std::false_type{}, std::false_type{});
                 }
               });
}

// Word sizes: the element itself, or 4, 8, 16 bytes above it.
template <int E, class F>
cudaError_t dispatch_bytes(int bytes, F&& f) {
  if (bytes == E) return f(std::integral_constant<int, E>{});
  if constexpr (E < 4)
    if (bytes == 4) return f(std::integral_constant<int, 4>{});
  if constexpr (E < 8)
    if (bytes == 8) return f(std::integral_constant<int, 8>{});
  if constexpr (E < 16)
    if (bytes == 16) return f(std::integral_constant<int, 16>{});
  return cudaErrorInvalidValue;
}

template <int E>
cudaError_t launch_words(const kernels::PermuteArgs& a, const BoxPlan& box, int ws, int wd,
                         unsigned blocks, std::uint32_t smem) {
  using T = typename Bytes<E>::type;
  return dispatch_bytes<E>(ws * E, [&](auto vs) {
    return dispatch_bytes<E>(wd * E, [&](auto vd) {
      constexpr int VS = decltype(vs)::value, VD = decltype(vd)::value;
      if constexpr (VS == E && VD == E) {
        return cudaErrorInvalidValue;  // no word on either side: permute_box_kernel
      } else {
        const bool swizzle = box_words_swizzled(box, E, wd);
        permute_box_words_kernel<E, VS, VD><<<blocks, kWordThreads, smem, a.stream>>>(
            static_cast<const T*>(a.src), static_cast<T*>(a.dst), box, swizzle);
        return cudaGetLastError();
      }
    });
  });
}

}  // namespace

std::int64_t kernels::permute_box_words_smem_bytes(const BoxPlan& box, int elem_bytes, int ws,
                                                   int wd) {
  const std::int64_t v = box.volume;
  // The elements in whole 128-byte rows (the swizzle permutes 16-byte chunks inside a row).
  return (v * elem_bytes + 127) / 128 * 128 + (v / ws) * (4 + 2) + (v / wd) * (4 + 2 + 2);
}

cudaError_t kernels::launch_permute_box_words(const PermuteArgs& a, const BoxPlan& box, int ws,
                                              int wd) {
  const auto smem =
      static_cast<std::uint32_t>(permute_box_words_smem_bytes(box, a.elem_bytes, ws, wd));
  const std::int64_t per_sm =
      std::max<std::int64_t>(1, std::min<std::int64_t>(8, (200 * 1024) / std::max(smem, 1u)));
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(box.boxes, a.sm_count * per_sm));
  switch (a.elem_bytes) {
    case 1:
      return launch_words<1>(a, box, ws, wd, blocks, smem);
    case 2:
      return launch_words<2>(a, box, ws, wd, blocks, smem);
    case 4:
      return launch_words<4>(a, box, ws, wd, blocks, smem);
    case 8:
      return launch_words<8>(a, box, ws, wd, blocks, smem);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace tmakit
