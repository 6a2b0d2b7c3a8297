// What a launcher decides per GPU, as one value: chosen once per device by the host
// (host/device_policy.cpp, from its rows of measured GPUs; TMAKIT_POLICY overrides fields there,
// in that one place) and passed down in kernels::LaunchArgs::policy. A launcher reads its
// fields and nothing else about the GPU or the environment, so what runs is a function of the
// call and this value, and the value is part of the plans' and wisdom's problem key.
#pragma once
#include <kernels/common/flat.hpp>

namespace tmakit {

struct DevicePolicy {
  // smem_sector and sector_accumulate: blocks walk down tile columns (else grouped rows), and
  // at 4 B a transpose owns 128 output rows a block instead of 64 (sector_kernel.cuh).
  bool sector_column_tiles = false;
  // smem_sector's owned granularity in bytes: 16, 32, 64 or 128 (128 not at 1 B).
  int sector_bytes = 32;
  // smem_flat and flat_accumulate: the bytes a unit moves (flat_kernel.cuh's flat_launch_plan)
  // for a single matrix with a short side >= 16; other calls flat_unit_bytes.
  int flat_skinny_unit_bytes = kFlatTileBytes;
  int flat_unit_bytes = kFlatTileBytes;
  // ... and which calls flat_plan's tables take.
  FlatTableLimits flat_limits;
  // smem_strip's tile where neither side is short (0: 64 x 64, 32 x 32 at 8-16 B).
  int strip_tile_rows = 0, strip_tile_cols = 0;
  // bulk_flat: ring stages, CTAs per SM at most, bytes a unit moves.
  int bulk_flat_stages = 2;
  int bulk_flat_ctas_per_sm = 6;
  int bulk_flat_unit_bytes = kFlatTileBytes;
  // permute_tile's box walk: each thread's offsets in registers, small blocks of one small box
  // (permute_box_reg_kernel) instead of shared tables from elements of this many bytes on (16:
  // 16-byte elements, where it measured 1.03-1.10x; at 8 B even, below slower; 32: never by the
  // element size, the rules below aside; 1: always; docs/perf-guide.md section 4.13); the boxes
  // that share a cut row's sectors walked one after another (box_cuts_first) instead of in dst
  // order alone; the tables' boxes loaded and stored in 4-16-byte words where the strides allow
  // (permute_box_words). (docs/perf-guide.md, "Permutations: the box kernels".)
  int permute_box_registers_min_bytes = 16;
  // ...and at elements of up to this many bytes, where the tables' walk would move a box element
  // by element on both sides (no 4-16-byte words: odd extents or strides), the registers' walk
  // instead (1-2 B: 1.15x over such cases of three seeds; 4 B: 1.08x over 9 held-out cases,
  // none slower, against the cp.async element walk; docs/perf-guide.md section 4.13). 0: never.
  int permute_box_registers_elements_max_bytes = 4;
  // ...and at elements of this many bytes (1 or 2; 0: never), where the tables' walk would load
  // its box element by element through registers and store words (src without words, dst with:
  // box_words_in_registers), the registers' walk as well (2 B: 1.10x over 33 held-out cases; at
  // 1 B 1.02x with 11 of 54 slower by 4% or more, not taken; docs/perf-guide.md section 4.13).
  int permute_box_registers_src_elements_bytes = 2;
  // ...and from 8-byte elements on (where the registers' walk runs 6 blocks of 40 registers an
  // SM, reg_box_shape), tensors of at most this many bytes as well: a block of the tables' walk
  // there walks a few boxes, so building its tables is much of its time (1.10x over 18
  // held-out cases of 1-16 MB; over 16 MB 0.97x; docs/perf-guide.md section 4.13). 0: never.
  int permute_box_registers_small_tensor_bytes = 16 << 20;
  // ...and from elements of this many bytes on (0: never), at any tensor size, where the tables'
  // box holds no more elements than the registers' walk's box may (reg_box_volume: 512 from 8 B
  // on, 2,048 below; below 8 B only where the registers' walk plans a box as large and stores dst
  // words as wide, box_registers_takes), the registers' walk as well: there it takes such a box
  // without tables, in more blocks an SM (8 B: 1.10x over 65 held-out cases, none slower; 4 B:
  // 1.10x over 296 held out, 16 slower, lowest 0.81; docs/perf-guide.md section 4.13).
  int permute_box_registers_box_fits_min_bytes = 4;
  // ...and on tensors of at most permute_box_registers_small_tensor_bytes, from that element size
  // on, tables' boxes of up to this many times the registers' walk's (reg_box_volume): the
  // registers' walk with its own box, no larger (RegistersRule::small_box). A small tensor's block
  // there walks one or two boxes, most of its time in building the tables (4 B: boxes of
  // 2,049-4,096 elements 1.146x over 24 held-out cases of 1-16 MB; at 16-256 MB 1.028x with 13 of
  // 53 slower; docs/perf-guide.md section 4.13). 0 or 1: never.
  int permute_box_registers_small_box_ratio = 2;
  // The registers' walk in words (reg_box_words: src words from 4 B on, dst words from 2 B on,
  // where the box and the addresses allow them) from elements of this many bytes on; 0: element
  // by element (1.06x over the 62 training cases it changes, none slower; docs/perf-guide.md
  // section 4.13).
  int permute_box_registers_words_min_bytes = 2;
  // Whether permute_tile's box walk keeps each thread's offsets in registers for every box of a
  // tensor of `tensor_bytes` (the two fields above this one's; the elements' rule is the
  // launcher's, on the box).
  bool box_registers(int elem_bytes, std::int64_t tensor_bytes) const {
    return elem_bytes >= permute_box_registers_min_bytes ||
           (elem_bytes >= 8 && tensor_bytes <= permute_box_registers_small_tensor_bytes);
  }
  // The small-box rule's ratio for a tensor of `tensor_bytes` (0 over
  // permute_box_registers_small_tensor_bytes: the rule is for small tensors alone).
  int box_registers_small_box_ratio(std::int64_t tensor_bytes) const {
    return tensor_bytes <= permute_box_registers_small_tensor_bytes
               ? permute_box_registers_small_box_ratio
               : 0;
  }
  // The box walks' batch order (make_box_plan; kBoxCuts* in kernels/common/permute_box.hpp): 0,
  // dst order; 1, src's innermost cut dimension's chunks first, then dst's, wherever the box cuts
  // them; 2, so only where src's chunk edges split 32-byte sectors and dst's do not, or do but
  // src's cut has at most 3 chunks (kBoxCutsFirstMaxSrcChunks), elsewhere dst order (2 against 1,
  // 1.07x over 242 held-out cases; docs/perf-guide.md section 4.13).
  int permute_box_cuts_first = 2;
  bool permute_box_words = true;
  // permute_tile's boxes grow (longer runs on both sides, fewer barriers and box origins per
  // element) up to about this many elements, as shared memory allows (make_box_plan).
  int permute_box_target_elems = 2048;
  // ...and at 1-byte elements, where the box so planned is walked in src words with single-byte
  // stores (dst allows no word: each dst byte a shared load and a store, a barrier a box), the box
  // of this target where it is walked so too (box_plan_for): fewer barriers a byte, and longer dst
  // runs where the box grows along dst (1.09-1.10x over 80 held-out 1-byte cases on both GPUs;
  // docs/perf-guide.md section 4.13, "Shipped: larger boxes for 1-byte stores"). 0: never.
  int permute_box_byte_stores_target_elems = 4096;
  // ...and where the box so planned leaves fewer than this many boxes an SM, the box of half the
  // target, down to kBoxMinTargetElems, until it does (0: never; permute_tile.cu's box_plan_for),
  // at elements of at most permute_box_min_boxes_max_bytes (1.04x over 401 held-out 1-4-byte
  // cases of 1-16 MB; at 8 B no faster in training; docs/perf-guide.md section 4.13).
  int permute_box_min_boxes_per_sm = 8;
  int permute_box_min_boxes_max_bytes = 4;
  // The boxes permute_tile's box walk asks for on `sm_count` SMs at `elem_bytes` (0: any count).
  std::int64_t box_min_boxes(int elem_bytes, int sm_count) const {
    return elem_bytes <= permute_box_min_boxes_max_bytes
               ? std::int64_t{permute_box_min_boxes_per_sm} * sm_count
               : 0;
  }
  // ...while the box with its tables, as make_box_plan counts them (box_smem_bytes), takes at most
  // this many bytes of shared memory (the kernels' own takes more: two buffers where they copy by
  // cp.async; over 48 KB the launch opts in); past the static 48 KB (kBoxMaxSmemBytes) as
  // box_past_static_smem allows (1.03x over the 143 held-out cases whose box it grew;
  // docs/perf-guide.md section 4.13).
  int permute_box_max_smem_bytes = 96 * 1024;
  // ...and at 4 bytes and more, where the box under 48 KB would be walked pipelined through
  // registers (which box_past_static_smem otherwise keeps), the larger box where it stores wider
  // dst words and loads no narrower src words (box_words_wider; docs/perf-guide.md section 4.13).
  bool permute_box_past_static_for_wider_words = true;
  // ...and of the boxes no smaller than the largest that grows so, the one that copies the fewest
  // elements twice (the overlapping last chunks of its cut dimensions), where it copies at least
  // 1% fewer (make_box_plan's least_waste, kBoxLeastWasteGain).
  bool permute_box_least_waste = true;
  // ...and a side's contiguous dimension taken whole where the box holds the next dimension of that
  // side, which continues it, and the box so widened fits (make_box_plan's whole_runs): one dense
  // region a box on that side (docs/perf-guide.md section 4.13).
  bool permute_box_whole_runs = true;
  // ...but not past the registers' walk: where the box so widened would leave it for the tables'
  // walk, and the box without whole runs is one the registers' walk takes by its box-fits rule
  // (box_whole_runs_yield), the registers' walk with that box (docs/perf-guide.md section 4.13).
  // true: the widened box wherever it fits.
  bool permute_box_whole_runs_past_registers = false;
  // ...and the word walk's shared box swizzled where consecutive dst words' gathers start a
  // multiple of this many bytes apart (0: never; box_words_swizzled).
  int permute_box_swizzle_bytes = 32;
  // auto's permute_tma for the tile form: its 128-byte square tiles at least this full (percent)
  // over the two tile dimensions, else permute_tile.
  int permute_tma_min_fill_pct = 20;
  // ...and there only where permute_tile's box (when it walks boxes) carries at most this many
  // times the bytes of a TMA tile (its fill x 128 x 128 bytes at up to 8-byte elements).
  int permute_tma_max_box_ratio = 3;
  // auto's permute_transpose for the tile form (a batch of transposes through transpose()'s
  // decider) where both tile dimensions are at least this many bytes long (0: never), per
  // element size (1, 2, 4, 8, 16 bytes): the box walk it is weighed against runs nearer copy
  // speed at 8-16 B, so the transposes need longer sides there. Fitted by
  // scripts/permute_rule.py (16 B refitted on the registers' walk there).
  int permute_transpose_min_side_bytes[5] = {80, 96, 112, 192, 224};
  int transpose_min_side_bytes(int elem_bytes) const {
    return permute_transpose_min_side_bytes[size_index(elem_bytes)];
  }
  // ...and there (and for the rank 6-8 split below) only where the matrix, rows x cols x element
  // bytes, is at least this many bytes, or where permute_tile would run its 2-D tile rather than
  // its box walk: a batch of small matrices gives each transpose block a few mostly empty tiles,
  // where a box walk block moves box after box. Per element size (1, 2, 4, 8, 16 bytes); 0: the
  // sides alone decide. Fitted by scripts/permute_rule.py --rule transpose-matrix on H200 runs;
  // the H100's row (host/device_policy.cpp) holds its own fit, far lower at 2-16 B.
  int permute_transpose_min_matrix_bytes[5] = {40960, 65536, 12288, 12288, 16384};
  int transpose_min_matrix_bytes(int elem_bytes) const {
    return permute_transpose_min_matrix_bytes[size_index(elem_bytes)];
  }
  // ...and at rank 6-8 after the reduction (0: never), where the batch of transposes is rank-5
  // permutations over the outer dimensions, one launch each, against the box walk in one launch:
  // longer sides than at rank 5, never at 16 B. Fitted by scripts/permute_rule.py --rule wide on
  // rank-6 cases of two seeds, judged on two others (docs/perf-guide.md section 4.13).
  int permute_wide_transpose_min_side_bytes[5] = {208, 144, 208, 512, 0};
  int wide_transpose_min_side_bytes(int elem_bytes) const {
    return permute_wide_transpose_min_side_bytes[size_index(elem_bytes)];
  }
  // auto's tile form as one launch of reg_tile (a thread transposes a block of 8 x 8 elements, 4 x
  // 4 at 4 B, 2 x 2 at 8 B, in registers: no shared memory, no barrier), at elements of at most
  // this many bytes, where its blocks take the batch (both tile sides whole blocks, every base,
  // pitch and batch stride aligned to a block row) and permute_transpose's rule above does not.
  // 0: never, as measured: the 2-byte (24, 40, 56, 72) reversal 1.19x, but 0.934x over the
  // training cases and 0.957x held out, long sides losing most (docs/perf-guide.md section 4.13).
  int permute_reg_tile_max_bytes = 0;
  // permute_tile's 2-D tile kernel (32 or 64-element square tiles, one a block) for a
  // transposing tile form whose two tile dimensions are whole runs (box_run_elems) and fill
  // 32-element tiles to at least this percentage (the product of both dimensions' fill), per
  // element size (1, 2, 4, 8, 16 bytes); else its box walk. (Odd extents: 101 is 3 full tiles
  // and one of 5, 0.79.) At 8-16 B the tile's independent blocks beat the box walk's tables
  // down to half-empty tiles; at 1-4 B the box walk's words win. Fitted by
  // scripts/permute_rule.py --rule tile-fill.
  int permute_tile_min_fill_pct[5] = {90, 90, 90, 60, 40};
  int tile_min_fill_pct(int elem_bytes) const {
    return permute_tile_min_fill_pct[size_index(elem_bytes)];
  }
  // The index of a per-element-size field's entry (1, 2, 4, 8, 16 bytes).
  static int size_index(int elem_bytes) {
    const int k = elem_bytes >= 16 ? 4 : elem_bytes >= 8 ? 3 : elem_bytes >= 4 ? 2 : elem_bytes - 1;
    return k < 0 ? 0 : k;
  }
  // permute_tile's row permutations: rows move as vectors of the widest size every offset allows
  // (v bytes, up to 16) when v is 16, or v is at least rows_vector_min_bytes and a row is at
  // most rows_vector_max_vecs vectors (a few per lane); else as realigned 16-byte chunks, whose
  // head and tail bytes and idle lanes cost more on short rows than 4-8-byte vectors do.
  int permute_rows_vector_min_bytes = 4;
  int permute_rows_vector_max_vecs = 128;
  // permute_tile's row permutations into a dense dst whose widest vector (every offset's) is at
  // most this many bytes: dst written as one run of aligned 16-byte chunks
  // (kernels/common/permute_rows.hpp) instead of row by row. 16 (every one): the flat walk was
  // as fast or faster at every vector size on the measured row permutations
  // (docs/perf-guide.md section 4.13); 0: never.
  int permute_rows_flat_max_vector_bytes = 16;
  // permute_tile's row permutations into a strided dst go to the row-by-row kernels from rows
  // this long on, per element size (1, 2, 4, 8, 16 bytes); shorter ones to the box walk, whose
  // boxes take several rows on each side: a row under two sectors costs the row kernels two or
  // three sectors a side, the box walk its shared-memory round trip, cheaper at 1 and 4 B. Fitted
  // by scripts/permute_rule.py --rule rows. (Into a dense dst the flat walk above takes every row
  // of 16 bytes or more: the same rule's fit on it, T = 16 at every size.)
  int permute_rows_min_bytes[5] = {80, 32, 80, 64, 32};
  int rows_min_bytes(int elem_bytes) const {
    return permute_rows_min_bytes[size_index(elem_bytes)];
  }
  // auto's permute_tma for a row permutation into a strided dst from rows this long on, per
  // element size; shorter rows to permute_tile's rows kernels, which measured as fast or faster
  // on rows of 128-256 bytes. (Into a dense dst auto takes permute_tile's flat walk: permute_tma
  // was faster on none of the measured row permutations.) One threshold for every size, fitted by
  // scripts/permute_rule.py --rule tma-rows (a fit per size had 0-9 cells a size).
  int permute_tma_min_row_bytes[5] = {512, 512, 512, 512, 512};
  int tma_min_row_bytes(int elem_bytes) const {
    return permute_tma_min_row_bytes[size_index(elem_bytes)];
  }
  // permute_tile's box walk: each box's origin decoded by one warp of the block, a box ahead,
  // instead of by every warp (kernels/primitives/box_walk.cuh).
  bool permute_box_origin_once = true;
  // permute_tile's walk in words where a box is at most two 8-16-byte words a thread: the next
  // box's loads issued before this box's stores (kernels/primitives/box_walk.cuh,
  // for_each_box_ahead) instead of each box loaded, then stored.
  bool permute_box_pipeline = true;
  // permute_tile's walk in words through registers (not cp.async) at elements of at most this
  // many bytes (0, 1 or 2): blocks of 128 threads instead of 256, each thread holding twice the
  // words (box_words_threads, kernels/common/permute_box.hpp). A block waits at a box's barriers
  // for half the warps. Fitted by scripts/permute_rule.py --rule words-block, one threshold on
  // the element size (faster at 1-2 B, slower at 4 B; docs/perf-guide.md section 4.13).
  int permute_box_words_small_block_max_bytes = 2;
  // permute_tile's box walks from 4-byte elements (or src words) on, where the register walk is
  // not pipelined: each box copied global -> shared by cp.async into two buffers, the next box's
  // copies in flight while this one is stored (box_loads, kernels/common/permute_box.hpp),
  // instead of through registers.
  bool permute_box_async = true;
  // ...and in the element walk through cp.async, a slot of padding every S elements of a shared
  // box whose stores gather elements an even S apart (bank conflicts otherwise).
  bool permute_box_pad = true;
  // permute_tile's box tables built in two levels (a full decode a row of the box, then a
  // division and a row-table read an entry) instead of a full decode an entry, where the row
  // tables fit in the box's shared buffer (kernels/permute/permute_tile.cu, build_box_entries).
  bool permute_box_row_tables = true;
  // permute_tile's box walks through cp.async: barriers a box. 1: box k + 1's copies issued
  // after box k's barrier, which also frees their buffer; 2: issued before it, a second barrier
  // after box k's stores freeing the buffer.
  int permute_box_async_barriers = 1;
  // permute_tile's box walks through cp.async: a block's first box copied as its src table
  // entries are made, so the copies are in flight while the dst table is built, instead of
  // after both tables and the block's barrier.
  bool permute_box_first_copies_early = true;
  // permute_tile's box walks: the last chunk of a cut dimension moved back to overlap the one
  // before it (those elements copied twice), so every box is whole (set_box_edges),
  // instead of cut short with coordinate checks.
  bool permute_box_overlap_edges = true;
  // permute(): whole rows of 2-16 bytes (a power of two, two elements or more) moved as elements
  // of that size, where the operands are aligned to it (host/permute/reduce.cpp, widen_rows):
  // the walks then take runs and row tables of those elements instead of rows of one word each.
  bool permute_rows_as_elements = true;
  // permute_tile's word walk: src words across whole box dimensions that continue src's
  // contiguous one (a run of 5 x 128 elements takes words of 8 where the 5 alone takes none;
  // box_vector_elems), and from 2 B on across a cut dimension that ends such a run.
  bool permute_box_src_runs = true;
  // ...and dst words across rows of dst's contiguous box dimension where the next dimension in
  // dst continues it (a run of 89 x 8 elements at 2 B takes words of 8 where the 89 alone takes
  // none; box_vector_elems).
  bool permute_box_dst_runs = true;
  // ...and at elements of at most this many bytes (0-2), dst words of 4-16 bytes across those
  // rows where src has words (stores an element at a time otherwise; box_vector_elems;
  // docs/perf-guide.md section 4.13: 2 measured faster at 2 B too, 1 until the GPU suite has run
  // at 2).
  int permute_box_narrow_dst_runs_max_bytes = 1;
  // ...and the box walks through cp.async with single-element dst stores keep each thread's dst
  // offsets and shared slots in registers (read from its tables once a block) instead of reading
  // two table entries a stored element, from 2-byte elements on (box_dst_in_registers; 1.12x over
  // the cases it takes; docs/perf-guide.md section 4.13).
  bool permute_box_dst_registers = true;
  // ...and boxes of up to twice those elements keep twice the entries a thread, at elements of 4
  // up to this many bytes (box_dst_register_entries; 4 B: 1.05x over the 26 cases of seeds 1-100
  // it takes, 1.07x over 68 held out; 8 B 0.99x; docs/perf-guide.md section 4.13). 0: never.
  int permute_box_dst_registers_large_max_bytes = 4;
  // ...and where dst takes single elements but src takes words inside box dimension 0, at elements
  // of at most this many bytes each thread stores a whole src word's elements (one shared load a
  // word instead of a gather an element; box_dst_by_src_words; 1-2 B: 1.10x over the cases it
  // takes, held out; 4-8 B about even; docs/perf-guide.md section 4.13). 0: never.
  int permute_box_dst_by_src_words_max_bytes = 2;
  // ...and where dst takes words of 4 bytes or more, at elements of at most this many bytes a
  // thread gathers the dst words along box dimension 0 together, 4-byte shared loads transposed
  // in registers (box_dst_blocks; 1 B: 1.06x over the cases it takes, held out; 2 B 0.99x;
  // docs/perf-guide.md section 4.13). 0: never.
  int permute_box_dst_blocks_max_bytes = 1;
  // permute_tile's box walks: as many blocks an SM (at most 8) as the device holds at once (0:
  // the occupancy query, registers and shared memory), or as this many bytes of shared memory
  // an SM hold (204800: the rule before the query).
  int permute_box_sm_smem_bytes = 0;
};

}  // namespace tmakit
