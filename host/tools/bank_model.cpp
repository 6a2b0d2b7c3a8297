#include <host/tools/bank_model.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <kernels/common/flat.hpp>
#include <kernels/common/smem_layouts.hpp>
#include <kernels/common/swizzle.hpp>
#include <kernels/common/tma_tile.hpp>

namespace tmakit {

Wavefronts shared_wavefronts(const WarpAccess& lanes, int width_bytes) {
  const int w = std::max(width_bytes, 1);
  const int lanes_per_phase = w <= 4 ? 32 : 128 / w;
  Wavefronts out;
  for (int p0 = 0; p0 < 32; p0 += lanes_per_phase) {
    std::map<std::uint32_t, std::set<std::uint32_t>> words_per_bank;
    bool any = false;
    for (int l = p0; l < p0 + lanes_per_phase; ++l) {
      if (!lanes[l].active) continue;
      any = true;
      const std::uint32_t first = lanes[l].addr / 4, last = (lanes[l].addr + w - 1) / 4;
      for (std::uint32_t word = first; word <= last; ++word) words_per_bank[word % 32].insert(word);
    }
    if (!any) continue;
    std::size_t worst = 1;
    for (const auto& [bank, words] : words_per_bank) worst = std::max(worst, words.size());
    out.actual += static_cast<int>(worst);
    out.ideal += 1;
  }
  return out;
}

namespace {

// Collects per-site totals.
struct Recorder {
  std::vector<AccessReport> sites;
  void add(const std::string& site, bool store, int width, const WarpAccess& lanes) {
    auto it = std::find_if(sites.begin(), sites.end(),
                           [&](const AccessReport& r) { return r.site == site; });
    if (it == sites.end()) {
      sites.push_back({site, store, width, 0, 0, 0});
      it = sites.end() - 1;
    }
    const Wavefronts wf = shared_wavefronts(lanes, width);
    if (wf.ideal == 0) return;
    if (it->requests == 0) it->first = lanes;
    ++it->requests;
    it->wavefronts += wf.actual;
    it->ideal += wf.ideal;
  }
};

// The shared layout of each classic technique (its kernel file's choice), in one place for the
// replay and the bank map: calls f(Layout{}, is_vec_tile) and returns true for a classic
// token, false otherwise. vec_* use 64x64 tiles for 1- and 2-byte elements (kVecTileSide).
template <class F>
bool with_classic_layout(const std::string& token, int e, F&& f) {
  if (token == "smem")
    f(RowMajorLayout<32>{}, false);
  else if (token == "smem_padded")
    f(PaddedLayout<32>{}, false);
  else if (token == "smem_xor")
    f(XorLayout<32>{}, false);
  else if (token == "smem_wide" || token == "smem_sector" || token == "smem_accumulate")
    f(XorLayout<64>{}, false);  // smem_sector: 64 columns, rows shifted by whole rows, the same
                                // bank pattern (its kernel file); smem_accumulate: smem_wide's
  else if (token == "vec_padded")
    e <= 2 ? f(PaddedLayout<64>{}, true) : f(PaddedLayout<32>{}, true);
  else if (token == "vec_swizzled")
    e <= 2 ? f(XorLayout<64>{}, true) : f(XorLayout<32>{}, true);
  else
    return false;
  return true;
}

// kernels/primitives/smem_tile.cuh: N x N tile (N = 32 or 64), threads (tx = 0..31,
// ty = 0..7), warp = ty; rows ty+j, columns tx+i.
template <class Layout>
void replay_smem_tile(int e, Recorder& rec) {
  constexpr int N = Layout::kN;
  for (int ty = 0; ty < 8; ++ty)
    for (int j = 0; j < N; j += 8)
      for (int i = 0; i < N; i += 32) {
        WarpAccess st{}, ld{};
        for (int tx = 0; tx < 32; ++tx) {
          st[tx] = {true, static_cast<std::uint32_t>(Layout::index(ty + j, tx + i) * e)};
          ld[tx] = {true, static_cast<std::uint32_t>(Layout::index(tx + i, ty + j) * e)};
        }
        rec.add("store tile(ty+j, tx+i)  [input row]", true, e, st);
        rec.add("load  tile(tx+i, ty+j)  [column, output row]", false, e, ld);
      }
}

// kernels/primitives/vec_tile.cuh: N x N tile, 256 threads, vector v = tid + k*256 of W
// elements; each element of a vector is its own shared access.
template <class Layout>
void replay_vec_tile(int e, Recorder& rec) {
  constexpr int N = Layout::kN;
  const int W = 16 / e, VPR = N / W, kVecs = N * VPR;
  for (int v0 = 0; v0 < kVecs; v0 += 32)
    for (int k = 0; k < W; ++k) {
      WarpAccess st{}, ld{};
      for (int lane = 0; lane < 32; ++lane) {
        const int v = v0 + lane;
        if (v >= kVecs) continue;
        const int r = v / VPR, c = (v % VPR) * W;
        st[lane] = {true, static_cast<std::uint32_t>(Layout::index(r, c + k) * e)};
        const int oc = v / VPR, orr = (v % VPR) * W;
        ld[lane] = {true, static_cast<std::uint32_t>(Layout::index(orr + k, oc) * e)};
      }
      rec.add("store tile(r, c+k)  [element k of an input vector]", true, e, st);
      rec.add("load  tile(orr+k, oc)  [element k of an output vector]", false, e, ld);
    }
}

// kernels/primitives/tma_tile.cuh: a T x T tile (T = 128/E), 64 diagonal chunk blocks; warp w
// holds slots 32w..32w+31. Loads: line r0+i, chunk c0*E; stores: line c0+j, chunk r0*E.
void replay_tma_tile(int e, int mode, bool loads, bool stores, Recorder& rec) {
  const std::uint32_t v = 16 / e, lines = 128 / e;
  for (std::uint32_t warp = 0; warp < 2; ++warp)
    for (std::uint32_t i = 0; i < v; ++i) {
      WarpAccess ld{}, st{};
      for (std::uint32_t lane = 0; lane < 32; ++lane) {
        const ChunkBlock b = diagonal_chunk_block(warp * 32 + lane);
        const std::uint32_t r0 = b.q * v, c0 = b.k * v;
        ld[lane] = {true, tma_tile_offset(r0 + i, c0 * e, lines, mode)};
        st[lane] = {true, tma_tile_offset(c0 + i, r0 * e, lines, mode)};
      }
      if (loads) rec.add("load  chunk (line r0+i of the TMA-loaded tile)", false, 16, ld);
      if (stores) rec.add("store chunk (line c0+j of the tile TMA stores)", true, 16, st);
    }
}

// kernels/tma/int4_8x8.cu: 8 threads (lanes 0..7), thread j copies element (i, j) to (j, i).
void replay_int4_8x8(bool swizzled, Recorder& rec) {
  for (int i = 0; i < 8; ++i) {
    WarpAccess ld{}, st{};
    for (int j = 0; j < 8; ++j) {
      const int col = swizzled ? int4_8x8_swizzled_col(i, j) : j;
      const int col_tr = swizzled ? int4_8x8_swizzled_col(j, i) : i;
      ld[j] = {true, static_cast<std::uint32_t>(i * 128 + col * 16)};
      st[j] = {true, static_cast<std::uint32_t>(j * 128 + col_tr * 16)};
    }
    rec.add("load  smem_buffer[i][swiz_j]  [a row]", false, 16, ld);
    rec.add("store smem_buffer_tr[j][swiz_i]  [a column]", true, 16, st);
  }
}

}  // namespace

std::vector<AccessReport> technique_bank_report(const std::string& token, int e, int swizzle_bytes,
                                                std::string* why) {
  Recorder rec;
  const bool classic_e = e == 1 || e == 2 || e == 4 || e == 8;
  if (token == "int4_8x8") {
    if (e != 16 || (swizzle_bytes != 0 && swizzle_bytes != 128)) {
      if (why) *why = "int4_8x8 takes 16-byte elements and swizzle none or 128 only";
      return {};
    }
    replay_int4_8x8(swizzle_bytes == 128, rec);
    return rec.sites;
  }
  if (!classic_e && !(token == "smem_padded" && e == 16)) {
    if (why) *why = "element size " + std::to_string(e) + " is not modelled for " + token;
    return {};
  }
  const bool classic = with_classic_layout(token, e, [&](auto layout, bool vec_tile) {
    using Layout = decltype(layout);
    vec_tile ? replay_vec_tile<Layout>(e, rec) : replay_smem_tile<Layout>(e, rec);
  });
  if (classic) return rec.sites;
  if (token == "tma_load_store" || token == "tma_pipeline" || token == "tma_wide" ||
      token == "tma_reduce")
    replay_tma_tile(e, tma_swizzle_mode_from_bytes(swizzle_bytes), true, true, rec);
  else if (token == "async_copy")  // its own offsets place the lines as a 128B-swizzled box
    replay_tma_tile(e, kSwizzle128B, true, false, rec);
  else if (token == "bulk_copy")  // plain 128-byte lines: the tile without a swizzle
    replay_tma_tile(e, kSwizzleNone, true, true, rec);
  else if (token == "tma_load")
    replay_tma_tile(e, tma_swizzle_mode_from_bytes(swizzle_bytes), true, false, rec);
  else if (token == "tma_store")
    replay_tma_tile(e, tma_swizzle_mode_from_bytes(swizzle_bytes), false, true, rec);
  else if (why && (token == "smem_flat" || token == "bulk_flat"))
    *why = "'" + token +
           "' has no tile: its shared loads depend on the call (smem_flat: "
           "`tmakit banks --variant smem_flat --rows R --cols C`, flat_gather_bank_report)";
  else if (why)
    *why = "'" + token + "' has no shared-memory transpose to model";
  return rec.sites;
}

namespace {

template <class Layout>
TileMap classic_tile_map(int e) {
  TileMap m{"element", Layout::kN, Layout::kN, {}};
  for (int r = 0; r < Layout::kN; ++r)
    for (int c = 0; c < Layout::kN; ++c)
      m.cells.push_back({static_cast<std::uint32_t>(Layout::index(r, c) * e), e, r, c});
  return m;
}

// The TMA tile of kernels/primitives/tma_tile.cuh: 128/E lines of 128 bytes, 8 chunks each;
// chunk k of line r holds logical columns k*V .. k*V+V-1 of tile row r.
TileMap tma_tile_map(int e, int mode) {
  const int lines = 128 / e;
  TileMap m{"16-byte chunk", lines, 8, {}};
  for (int r = 0; r < lines; ++r)
    for (int k = 0; k < 8; ++k)
      m.cells.push_back(
          {tma_tile_offset(static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(k * 16),
                           static_cast<std::uint32_t>(lines), mode),
           16, r, k});
  return m;
}

std::string hsl_for(int col, int cols) {
  // Neighbouring columns get far-apart hues (stride 7 of `cols`), so a column stands out.
  const int n = std::max(cols, 1);
  const int h = static_cast<int>((static_cast<long>(col) * 7 % n) * 360L / n);
  std::ostringstream o;
  o << "hsl(" << h << ",70%," << (col % 2 ? 78 : 68) << "%)";
  return o.str();
}

}  // namespace

TileMap technique_tile_map(const std::string& token, int e, int swizzle_bytes, std::string* why) {
  std::string model_why;
  if (technique_bank_report(token, e, swizzle_bytes, &model_why).empty()) {
    if (why) *why = model_why;
    return {};
  }
  if (token == "int4_8x8") {
    TileMap m{"16-byte chunk", 8, 8, {}};
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        const int col = swizzle_bytes == 128 ? int4_8x8_swizzled_col(i, j) : j;
        m.cells.push_back({static_cast<std::uint32_t>(i * 128 + col * 16), 16, i, j});
      }
    return m;
  }
  TileMap classic;
  if (with_classic_layout(
          token, e, [&](auto layout, bool) { classic = classic_tile_map<decltype(layout)>(e); }))
    return classic;
  if (token == "async_copy") return tma_tile_map(e, kSwizzle128B);
  if (token == "bulk_copy") return tma_tile_map(e, kSwizzleNone);
  return tma_tile_map(e, tma_swizzle_mode_from_bytes(swizzle_bytes));  // the tma_* techniques
}

std::string bank_map_svg(const std::string& title, const std::string& subtitle, const TileMap& map,
                         const WarpAccess* outline, int outline_width, int max_rows) {
  constexpr int kCellW = 30, kCellH = 18, kLeft = 52, kTop = 64;
  std::uint32_t end = 0;
  for (const TileCell& c : map.cells) end = std::max(end, c.addr + c.width_bytes);
  const int rows_total = static_cast<int>((end + 127) / 128);
  const int rows = std::min(rows_total, max_rows);
  const int width = kLeft + 32 * kCellW + 12, height = kTop + rows * kCellH + 40;
  // One owner per 4-byte word: the first cell (in row-major logical order) that touches it.
  std::map<std::uint32_t, const TileCell*> owner;
  for (const TileCell& c : map.cells)
    for (std::uint32_t w = c.addr / 4; w <= (c.addr + c.width_bytes - 1) / 4; ++w)
      owner.emplace(w, &c);
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"monospace\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << title << "</text>\n";
  o << "<text x=\"8\" y=\"36\" font-size=\"11\">" << subtitle << "</text>\n";
  for (int b = 0; b < 32; ++b)
    o << "<text x=\"" << kLeft + b * kCellW + kCellW / 2 << "\" y=\"" << kTop - 6
      << "\" font-size=\"9\" text-anchor=\"middle\">b" << b << "</text>\n";
  for (int r = 0; r < rows; ++r)
    o << "<text x=\"" << kLeft - 4 << "\" y=\"" << kTop + r * kCellH + 13
      << "\" font-size=\"9\" text-anchor=\"end\">+" << r * 128 << "</text>\n";
  // Cells: a wide cell (16 bytes) is one rectangle over its 4 banks when its owner is itself.
  for (const TileCell& c : map.cells) {
    const std::uint32_t w0 = c.addr / 4;
    if (owner.at(w0) != &c) continue;
    const int r = static_cast<int>(c.addr / 128);
    if (r >= rows) continue;
    const int bank = static_cast<int>(w0 % 32);
    const int span = std::max(1, c.width_bytes / 4);
    const int x = kLeft + bank * kCellW, y = kTop + r * kCellH;
    o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << span * kCellW << "\" height=\""
      << kCellH << "\" fill=\"" << hsl_for(c.col, map.cols)
      << "\" stroke=\"#888\" stroke-width=\"0.5\"/>\n";
    o << "<text x=\"" << x + span * kCellW / 2 << "\" y=\"" << y + 13
      << "\" font-size=\"9\" text-anchor=\"middle\">";
    if (c.width_bytes >= 8)
      o << c.row << "," << c.col;
    else
      o << c.col;
    o << "</text>\n";
  }
  int outlined = 0;
  if (outline != nullptr)
    for (const LaneAccess& l : *outline) {
      if (!l.active) continue;
      const int r = static_cast<int>(l.addr / 128);
      if (r >= rows) continue;
      const int bank = static_cast<int>(l.addr / 4 % 32);
      const int span = std::max(1, (outline_width + 3) / 4);
      o << "<rect x=\"" << kLeft + bank * kCellW + 1 << "\" y=\"" << kTop + r * kCellH + 1
        << "\" width=\"" << span * kCellW - 2 << "\" height=\"" << kCellH - 2
        << "\" fill=\"none\" stroke=\"black\" stroke-width=\"2.5\"/>\n";
      ++outlined;
    }
  o << "<text x=\"8\" y=\"" << kTop + rows * kCellH + 18 << "\" font-size=\"10\">"
    << "rows: 128-byte lines of shared memory (byte offset); columns: banks b0..b31; cell: one "
    << map.unit << " labelled "
    << (map.cells.empty() || map.cells[0].width_bytes < 8 ? "col" : "row,col")
    << ", coloured by logical column"
    << (rows < rows_total
            ? "; first " + std::to_string(rows) + " of " + std::to_string(rows_total) + " lines"
            : std::string())
    << "</text>\n";
  o << "<!-- outlined-lanes: " << outlined << " -->\n</svg>\n";
  return o.str();
}

// Replays store_unit's item loop as its warps run it (256 threads; thread t takes items t,
// t + 256, ...; a warp, 32 consecutive items), through the kernel's own functions: flat_plan,
// flat_unit, flat_dst_items / flat_dst_item / flat_dst_chunk, flat_chunk, and for a whole chunk
// either the offset table (flat_table_row_at / flat_table_value) or the stepped walk.
std::vector<AccessReport> flat_gather_bank_report(std::int64_t rows, std::int64_t cols,
                                                  std::int64_t batch, int e, int tile_bytes,
                                                  std::string* why, int max_units) {
  const FlatPlan p = flat_plan(rows, cols, e, batch, cols, rows, rows * cols, rows * cols,
                               tile_bytes, {kFlatTableMaxRows, kFlatBatchTableMaxElemBytes});
  if (p.form == FlatForm::kNone) {
    if (why != nullptr) *why = "no flat form for this call (smem_flat runs smem_strip)";
    return {};
  }
  constexpr std::uintptr_t kSrc = 0x10000000, kDst = 0x40000000;  // cudaMalloc-aligned
  const int v = 16 / e;
  const bool table = p.form != FlatForm::kTall && e < 16 && p.table_rows > 0;
  AccessReport elems{"load element (gather)", false, e, 0, 0, 0, {}};
  AccessReport rows_ld{"load table row", false, v >= 4 ? 16 : 4, 0, 0, 0, {}};
  const FlatGather& g = p.gather;
  for (std::int64_t u = 0; u < std::min<std::int64_t>(p.units, max_units); ++u) {
    const FlatUnit f = flat_unit(p, u);
    const int b0 = static_cast<int>((kSrc + f.src.first * e) & 15);
    const int len_bytes = f.dst.len * e, nv = flat_chunks_per_run(len_bytes);
    const int items = flat_dst_items(f.dst.runs, nv);
    for (int base = 0; base < items; base += 32) {
      // Per lane: the shared bytes of its V elements, and of its table reads (empty: idle).
      std::vector<std::vector<std::uint32_t>> el(32), tb(32);
      for (int l = 0; l < 32 && base + l < items; ++l) {
        const FlatItem it = flat_dst_item(base + l, f.dst.runs);
        const std::uintptr_t a = kDst + (f.dst.first + std::int64_t(it.d) * f.dst.pitch) * e;
        const int k = flat_dst_chunk(it.k, f.dst.runs, a);
        if (k < 0 || k >= nv) continue;
        const FlatChunk c = flat_chunk(a, len_bytes, k);
        if (!c.whole()) continue;
        FlatWalk w = flat_walk(g, it.d, static_cast<int>(c.c - a) / e);
        if (table && flat_chunk_in_matrix(g, w, v)) {
          const int row = flat_table_row_at(v, p.table_rows, w.i1);
          for (int j = 0; j < v; ++j) el[l].push_back(b0 + w.off + flat_table_value(g, w.i1, j));
          for (int j = 0; j < v; j += v >= 4 ? 4 : 1)
            tb[l].push_back(static_cast<std::uint32_t>(p.table_at + (row + j) * 4));
        } else {
          for (int j = 0; j < v; ++j, flat_step(g, w)) el[l].push_back(b0 + w.off);
        }
      }
      // Lanes issue their j-th load together (the kernel's unrolled loops).
      auto add = [](AccessReport& r, const std::vector<std::vector<std::uint32_t>>& lanes) {
        std::size_t n = 0;
        for (const auto& x : lanes) n = std::max(n, x.size());
        for (std::size_t j = 0; j < n; ++j) {
          WarpAccess w{};
          for (int l = 0; l < 32; ++l)
            if (j < lanes[l].size()) w[l] = {true, lanes[l][j]};
          const Wavefronts f = shared_wavefronts(w, r.width_bytes);
          if (r.requests == 0) r.first = w;
          ++r.requests;
          r.wavefronts += f.actual;
          r.ideal += f.ideal;
        }
      };
      add(elems, el);
      add(rows_ld, tb);
    }
  }
  std::vector<AccessReport> out = {elems};
  if (rows_ld.requests > 0) out.push_back(rows_ld);
  return out;
}

}  // namespace tmakit
