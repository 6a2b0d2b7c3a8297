// Shared-memory tile layouts of the classic ladder: where logical tile element (row r, col c)
// lives in a shared array of T. The kernels, the tests and (later) the host-side bank model
// all use these same functions, so a layout is defined once.
#pragma once
#include <kernels/common/arch.hpp>

namespace tmakit {

// N x N, row-major: element (r, c) at r*N + c. Reading a column (fixed c, r = 0..31) of 4-byte
// elements hits one bank 32 times: the textbook 32-way conflict of `smem`.
template <int N>
struct RowMajorLayout {
  static constexpr int kN = N;
  static constexpr int kElems = N * N;
  static TMAKIT_HD int index(int r, int c) { return r * N + c; }
};

// N x (N+1): each row starts one element later, so a column of 4-byte elements walks through
// all 32 banks (bank = (r*(N+1) + c) % 32 = (r + c) % 32 for N = 32).
template <int N>
struct PaddedLayout {
  static constexpr int kN = N;
  static constexpr int kElems = N * (N + 1);
  static TMAKIT_HD int index(int r, int c) { return r * (N + 1) + c; }
};

// N x N with the column XOR-ed by the row: element (r, c) at r*N + (c ^ (r mod N)). For N = 32
// this is CuTe's Swizzle<5,0,5> on the linear index i = r*32 + c (i ^ ((i >> 5) & 31)). Within
// a row it only permutes columns (a bijection), and a column c visits c^0, c^1, ..., c^31:
// 32 distinct banks for 4-byte elements, with no padding.
template <int N>
struct XorLayout {
  static_assert((N & (N - 1)) == 0, "XOR swizzle needs a power-of-two tile side");
  static constexpr int kN = N;
  static constexpr int kElems = N * N;
  static TMAKIT_HD int index(int r, int c) { return r * N + (c ^ (r & (N - 1))); }
};

}  // namespace tmakit
