// A host model of shared-memory bank conflicts on sm_90, fed by the SAME index functions the
// kernels use (kernels/common), so every shared access pattern of a technique can be replayed.
//
// Model: 32 banks of 4 bytes. A warp-wide access of w bytes per lane is served in phases of
// 128 bytes' worth of lanes: w <= 4 one phase of 32 lanes, w = 8 two half-warps, w = 16 four
// quarter-warps. In a phase, each lane touches w/4 consecutive 4-byte words (one for w < 4);
// lanes reading the same word share it (broadcast); the phase costs as many wavefronts as the
// most distinct words any one bank must deliver. A request costs the sum over its phases that
// have an active lane; the ideal is that count with no conflict (1 per phase).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tmakit {

struct LaneAccess {
  bool active = false;
  std::uint32_t addr = 0;  // shared-memory byte address
};
using WarpAccess = std::array<LaneAccess, 32>;

struct Wavefronts {
  int actual = 0;
  int ideal = 0;
};

Wavefronts shared_wavefronts(const WarpAccess& lanes, int width_bytes);

// Every shared load and store instruction of a technique over one tile, summed per
// instruction site: requests (warp-level instructions), wavefronts, and the conflict-free
// ideal. `swizzle_bytes` applies to TMA techniques (0, 32, 64, 128).
struct AccessReport {
  std::string site;  // e.g. "store tile[ty+j][tx]" or "load chunk (TMA tile, line r0+i)"
  bool is_store = false;
  int width_bytes = 0;
  long requests = 0;
  long wavefronts = 0;
  long ideal = 0;
  WarpAccess first{};  // the lanes of the site's first request (what a figure outlines)
  double per_request() const { return requests ? double(wavefronts) / requests : 0.0; }
  double ideal_per_request() const { return requests ? double(ideal) / requests : 0.0; }
};

// Empty with *why set when the technique has no shared-memory transpose to model (naive_*,
// copy, tma_copy) or the element size / swizzle does not apply.
std::vector<AccessReport> technique_bank_report(const std::string& token, int elem_bytes,
                                                int swizzle_bytes, std::string* why);

// Where each logical piece of one tile lives in shared memory, for bank maps: a cell is one
// element (classic techniques) or one 16-byte chunk (TMA tiles, int4_8x8), at its byte address,
// with its logical (row, col) in the tile counted in cells.
struct TileCell {
  std::uint32_t addr = 0;
  int width_bytes = 0;
  int row = 0;
  int col = 0;
};
struct TileMap {
  std::string unit;  // "element" or "16-byte chunk"
  int rows = 0;
  int cols = 0;
  std::vector<TileCell> cells;
};
// Empty (cells) with *why set where technique_bank_report has nothing to model.
TileMap technique_tile_map(const std::string& token, int elem_bytes, int swizzle_bytes,
                           std::string* why);

// smem_flat's phase 2 (kernels/primitives/flat_gather.cuh store_unit) over the first
// `max_units` units of a dense call (batch matrices of rows x cols), src and dst at
// 256-byte-aligned addresses (as cudaMalloc gives) and unit size `tile_bytes`, replayed through
// flat.hpp's own plan and index functions: the element loads of whole destination chunks (one
// request per element of a chunk) and, where the plan has one, the offset table's loads. Partial
// chunks (at most two per destination run) are left out. Empty with *why when the call has no flat
// form.
std::vector<AccessReport> flat_gather_bank_report(std::int64_t rows, std::int64_t cols,
                                                  std::int64_t batch, int elem_bytes,
                                                  int tile_bytes, std::string* why,
                                                  int max_units = 40);

// An SVG drawing of a tile map: one row per 128 bytes of shared memory (at most max_rows), one
// column per bank; each cell filled with a colour keyed to its logical tile column and labelled
// with it (with "row,col" for cells of 8 bytes or more). `outline` marks the lanes of one warp
// request (width `outline_width` bytes each) with a thick border. Pure host code.
std::string bank_map_svg(const std::string& title, const std::string& subtitle, const TileMap& map,
                         const WarpAccess* outline, int outline_width, int max_rows = 40);

}  // namespace tmakit
