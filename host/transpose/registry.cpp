// Adding a technique: one kernel file, one launcher declaration in kernels/launchers.hpp, one
// row here. Tests, benchmarks and the CLI pick it up from this table.
#include <host/transpose/registry.hpp>
#include <kernels/common/elem.hpp>

namespace tmakit {
namespace {

VariantDef row(const char* token, const char* description, int min_cc, unsigned elem_mask,
               int fast_align, bool tma, VariantKind kind, kernels::Launcher launch,
               kernels::Planner plan = nullptr) {
  VariantDef d;
  d.info.token = token;
  d.info.description = description;
  d.info.min_cc = min_cc;
  d.info.elem_bytes_mask = elem_mask;
  d.info.fast_align_bytes = fast_align;
  d.info.uses_tma = tma;
  d.info.kind = kind;
  d.launch = launch;
  d.plan = plan;
  d.info.may_fall_back = plan != nullptr;
  return d;
}

constexpr auto kT = VariantKind::kTranspose;

// A technique whose planner refuses the shapes outside its forms (TmaPlan::shape_rule).
VariantDef shape_limited(VariantDef d) {
  d.info.shape_limited = true;
  return d;
}

// A TMA technique: compute capability 9.0, 16-byte alignment, a planner for its tensor maps.
VariantDef tma_row(const char* token, const char* description, unsigned elem_mask, VariantKind kind,
                   std::vector<int> swizzles, bool barrier_axis, kernels::Launcher launch,
                   kernels::Planner plan) {
  VariantDef d = row(token, description, 90, elem_mask, 16, true, kind, launch);
  d.info.swizzle_axis_bytes = std::move(swizzles);
  d.info.barrier_axis = barrier_axis;
  d.plan = plan;
  d.info.may_fall_back = true;
  return d;
}

// A technique whose kernels find each matrix through BatchStrides::batch_offsets, so they take a
// batch of up to three dimensions with any strides (a permutation's tile form).
VariantDef batches3(VariantDef d) {
  d.info.batch_dims = 3;
  return d;
}

const std::vector<int> kAllSwizzles = {0, 32, 64, 128};

std::vector<VariantDef> make_registry() {
  namespace k = kernels;
  return {
      batches3(row("naive_read", "16x16 threads, one element each: coalesced read, strided write",
                   75, kElems1248, 1, false, kT, k::launch_naive_read)),
      batches3(row("naive_write", "16x16 threads, one element each: strided read, coalesced write",
                   75, kElems1248, 1, false, kT, k::launch_naive_write)),
      batches3(row("smem",
                   "32x32 shared tile, 32x8 threads: both sides coalesced, 32-way bank conflicts",
                   75, kElems1248, 1, false, kT, k::launch_smem)),
      batches3(row("smem_padded", "smem with 32x33 padding: conflict-free column reads", 75,
                   kElems1248 | elem_bit(16), 1, false, kT, k::launch_smem_padded)),
      batches3(row("smem_xor", "smem with XOR-swizzled columns (CuTe Swizzle<5,0,5>), no padding",
                   75, kElems1248, 1, false, kT, k::launch_smem_xor)),
      batches3(row("smem_wide",
                   "smem_xor with a 64x64 tile: 16 elements per thread (cuBLAS geam's shape)", 75,
                   kElems1248, 1, false, kT, k::launch_smem_wide)),
      row("smem_strip",
          "a tile spanning a short side (<= 32) whole and ~16 KB of the long one: skinny and "
          "small matrices read and write long runs",
          75, kElems1248 | elem_bit(16), 1, false, kT, k::launch_smem_strip),
      batches3(
          row("smem_sector",
              "smem_wide whose blocks own whole 32-byte sectors of each output row: rows of any "
              "length without split sectors",
              75, kElems1248, 1, false, kT, k::launch_smem_sector)),
      row("smem_realign",
          "smem_sector with 16-byte global vectors at any row alignment: aligned vectors "
          "realigned by funnel shifts, transposed in shared memory, whole output sectors",
          75, kElems1248, 1, false, kT, k::launch_smem_realign),
      row("reg_realign",
          "smem_realign without its input tile: a thread realigns a 4-row x 16-byte block, "
          "transposes it in registers and writes it to the output tile, which stores whole "
          "sectors as 16-byte vectors (256-row tiles, pad 32 / E rows)",
          75, kElems1248, 1, false, kT, k::launch_reg_realign),
      row("smem_flat",
          "smem_strip with 16-byte global accesses on both sides: the dense side of a skinny "
          "matrix or a small-matrix batch is one run, moved in whole 16-byte chunks whatever "
          "the short side",
          75, kElems1248 | elem_bit(16), 1, false, kT, k::launch_smem_flat),
      row("reg_permute",
          "smem_flat without shared memory: a thread loads a short side (2..32) x 16 bytes as "
          "16-byte chunks, permutes them in registers and stores 16-byte chunks (aligned "
          "skinny matrices and small-matrix batches, and k x N at 1 B with unaligned rows "
          "through realigned loads; else smem_flat)",
          75, kElems1248, 16, false, kT, k::launch_reg_permute),
      batches3(row("reg_tile",
                   "reg_permute with square blocks: a thread transposes 8 x 8 elements (4 x 4 at "
                   "4 B, 2 x 2 at 8 B) in registers, 8- or 16-byte rows each way, so small-matrix "
                   "batches fill the GPU (sides whole blocks, aligned operands; else smem_flat, "
                   "or smem_xor for a batch of several dimensions)",
                   75, kElems1248, 16, false, kT, k::launch_reg_tile)),
      batches3(row("box_walk",
                   "permute_tile's box walk: the matrix (and its batch) as a permutation whose "
                   "boxes span whole runs of both sides, so a short side's rows stay whole "
                   "(skinny k x N at 1-2 B); any element size, alignment and strides",
                   75, kElems1248 | elem_bit(16), 1, false, kT, k::launch_box_walk)),
      batches3(row("vec_padded", "16-byte global loads/stores, padded shared tile", 75, kElems1248,
                   16, false, kT, k::launch_vec_padded)),
      batches3(row("vec_swizzled", "16-byte global loads/stores, XOR-swizzled shared tile", 75,
                   kElems1248, 16, false, kT, k::launch_vec_swizzled)),
      row("async_copy",
          "tma_load with cp.async (cuda::memcpy_async, 3-stage pipeline) instead of the TMA "
          "load: 16-byte copies to shared memory without registers, no tensor map (sm_80)",
          80, kElems1248, 16, false, kT, k::launch_async_copy, k::plan_async_copy),
      row("async_roofline",
          "async_copy's loads stored straight back with 16-byte STG, no transpose: cp.async's "
          "roofline",
          80, kElems1248, 16, false, VariantKind::kCopy, k::launch_async_roofline,
          k::plan_async_copy),
      row("copy", "16-byte LDG/STG copy, no transpose: the roofline (pitched rows: row-wise)", 75,
          kElems1248, 16, false, VariantKind::kCopy, k::launch_copy),
      tma_row("tma_copy", "TMA load + TMA store of 256-line boxes, no transpose: TMA's roofline",
              kElems1248, VariantKind::kCopy, {0}, true, k::launch_tma_copy, k::plan_tma_copy),
      tma_row("tma_load_store",
              "TMA load into swizzled smem, 16-byte in-smem transpose, proxy fence, TMA store",
              kElems1248, kT, kAllSwizzles, true, k::launch_tma_load_store, k::plan_tma_load_store),
      tma_row("tma_load", "TMA load, transposed 16-byte reads from the swizzled tile, 16-byte STG",
              kElems1248, kT, kAllSwizzles, true, k::launch_tma_load, k::plan_tma_load),
      tma_row("tma_store", "16-byte LDG, writes into a swizzled tile, TMA store (Colfax)",
              kElems1248, kT, kAllSwizzles, false, k::launch_tma_store, k::plan_tma_store),
      tma_row("tma_pipeline",
              "persistent CTAs, ring of TMA stages with one mbarrier each, bulk-group store retire",
              kElems1248, kT, kAllSwizzles, true, k::launch_tma_pipeline, k::plan_tma_pipeline),
      tma_row("tma_wide",
              "tma_load_store with 256-byte tile rows (two boxes each way), column-major tile "
              "order and evict_last L2 hints on the loads (16-byte elements: 512-byte tile rows)",
              kElems1248 | elem_bit(16), kT, {0, 128}, true, k::launch_tma_wide, k::plan_tma_wide),
      tma_row("bulk_copy",
              "tma_load_store without tensor maps: one 1-D cp.async.bulk per 128-byte row "
              "segment each way, unswizzled tile, edges computed by the kernel",
              kElems1248, kT, {0}, false, k::launch_bulk_copy, k::plan_bulk_copy),
      tma_row("bulk_roofline",
              "1-D cp.async.bulk loads of 1024-byte row segments stored straight back: the bulk "
              "copy's roofline",
              kElems1248, VariantKind::kCopy, {0}, false, k::launch_bulk_roofline,
              k::plan_bulk_copy),
      shape_limited(
          row("bulk_flat",
              "smem_flat with the TMA unit loading: one 1-D cp.async.bulk per unit (a few whole "
              "matrices of a batch, or rows of a <= 32-column matrix) into a ring of stages, "
              "persistent CTAs gathering one unit while the next loads (any alignment)",
              90, kElems1248 | elem_bit(16), 1, true, kT, k::launch_bulk_flat, k::plan_bulk_flat)),
      row("smem_accumulate",
          "transpose-accumulate dst = alpha*src^T + beta*dst: smem_wide reading dst before it "
          "writes (every type, alpha, beta, shape)",
          75, elem_bit(2) | elem_bit(4) | elem_bit(8), 1, false, VariantKind::kAccumulate,
          k::launch_smem_accumulate),
      row("flat_accumulate",
          "transpose-accumulate on smem_flat: skinny matrices (a side <= 32) and small-matrix "
          "batches in whole 16-byte dst chunks read, combined and written (every type, alpha, "
          "beta; other shapes: smem_accumulate)",
          75, elem_bit(2) | elem_bit(4) | elem_bit(8), 1, false, VariantKind::kAccumulate,
          k::launch_flat_accumulate),
      row("sector_accumulate",
          "transpose-accumulate on smem_sector: each block reads and writes whole 32-byte "
          "sectors of dst, so rows of any length split no sector (every type, alpha, beta)",
          75, elem_bit(2) | elem_bit(4) | elem_bit(8), 1, false, VariantKind::kAccumulate,
          k::launch_sector_accumulate),
      tma_row("tma_reduce",
              "transpose-accumulate with beta = 1: tma_load_store whose store is "
              "cp.reduce.async.bulk.tensor .add (f16, bf16, f32, i32; f64 falls back)",
              elem_bit(2) | elem_bit(4) | elem_bit(8), VariantKind::kAccumulate, {128}, false,
              k::launch_tma_reduce, k::plan_tma_reduce),
      tma_row("tma_accumulate",
              "transpose-accumulate on tma_wide: TMA loads the source tile and the dst tile on "
              "one mbarrier, threads combine in shared memory, TMA stores (every type, alpha, "
              "beta)",
              elem_bit(2) | elem_bit(4) | elem_bit(8), VariantKind::kAccumulate, {128}, false,
              k::launch_tma_accumulate, k::plan_tma_accumulate),
      tma_row("int4_8x8",
              "the Programming Guide's 8x8 int4 example: 8 threads, SWIZZLE_128B (or none)",
              elem_bit(16), kT, {0, 128}, true, k::launch_int4_8x8, k::plan_int4_8x8),
  };
}

}  // namespace

const std::vector<VariantDef>& registry() {
  static const std::vector<VariantDef> table = make_registry();
  return table;
}

const VariantDef* find_variant_def(const std::string& token) {
  for (const VariantDef& d : registry())
    if (d.info.token == token) return &d;
  return nullptr;
}

namespace {
// A permutation technique's row: every element size, kind kPermute.
PermuteDef permute_row(const char* token, const char* description, int min_cc,
                       kernels::PermuteLauncher launch) {
  PermuteDef d;
  d.info.token = token;
  d.info.description = description;
  d.info.min_cc = min_cc;
  d.info.elem_bytes_mask = kElems1248 | elem_bit(16);
  d.info.kind = VariantKind::kPermute;
  d.launch = launch;
  return d;
}
}  // namespace

const std::vector<PermuteDef>& permute_registry() {
  static const std::vector<PermuteDef> defs = [] {
    std::vector<PermuteDef> d;
    d.push_back(permute_row(
        "permute_tile",
        "LDG/STG: a 32x33 shared tile of the two dimensions contiguous in src and dst inside a "
        "batch of up to three more; whole rows with the widest vector when the inner dimension "
        "stays; boxes of whole runs on both sides for short ones and for rank 6-8",
        75, kernels::launch_permute_tile));
    PermuteDef tma = permute_row(
        "permute_tma",
        "TMA: rank-5 tensor maps of src and dst walk the permutation's strides; tiles transposed "
        "in 128-byte-swizzled shared memory, or whole-row boxes stored back unchanged",
        90, kernels::launch_permute_tma);
    tma.info.fast_align_bytes = 16;
    tma.info.uses_tma = true;
    tma.info.may_fall_back = true;
    tma.info.swizzle_axis_bytes = {128};
    d.push_back(tma);
    // No launcher of its own: permute() hands the call to transpose()'s plans.
    PermuteDef tr = permute_row(
        "permute_transpose",
        "the tile form as one launch of transposes: the two tile dimensions a matrix, the up to "
        "three dimensions around them its batch (interleaved matrices and strides of any kind), "
        "run by the transpose() technique the one decider ranks first of those that take such a "
        "batch; a permutation that reduces to a transpose, transpose()'s own call (as auto)",
        75, nullptr);
    tr.info.may_fall_back = true;
    d.push_back(tr);
    return d;
  }();
  return defs;
}

const PermuteDef* find_permute_def(const std::string& token) {
  for (const PermuteDef& d : permute_registry())
    if (d.info.token == token) return &d;
  return nullptr;
}

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> infos = [] {
    std::vector<VariantInfo> v;
    for (const VariantDef& d : registry()) v.push_back(d.info);
    return v;
  }();
  return infos;
}

const VariantInfo* find_variant(const std::string& token) {
  for (const VariantInfo& v : variants())
    if (v.token == token) return &v;
  return nullptr;
}

bool VariantInfo::supports_elem_bytes(int elem_bytes) const {
  const unsigned bit = elem_bit(elem_bytes);
  return bit != 0 && (elem_bytes_mask & bit) != 0;
}

}  // namespace tmakit
