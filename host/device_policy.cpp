// The per-device policy: rows of measured GPUs (docs/perf-guide.md has each field's figures),
// and TMAKIT_POLICY, the one place an environment variable changes what a launcher does.
#include <host/device_policy.hpp>

#include <cstdio>
#include <cstdlib>
#include <kernels/common/permute_box.hpp>
#include <mutex>
#include <sstream>

namespace tmakit {
namespace {

// The rows: a GPU class by its peak DRAM bandwidth, the first row the device reaches.
struct PolicyRow {
  const char* name;
  double min_dram_gbps;
  DevicePolicy policy;
};

DevicePolicy hbm3_policy() {  // the H100 (3350 GB/s), and any GPU below the H200
  DevicePolicy p;
  // The batch of transposes against the box walk, refitted on H100 runs of the matrix class and
  // the permute preset (docs/perf-guide.md section 4.13): the H100's transposes win on smaller
  // matrices than the H200's.
  const int min_matrix_bytes[5] = {40960, 6144, 8192, 8192, 4096};
  for (int k = 0; k < 5; ++k) p.permute_transpose_min_matrix_bytes[k] = min_matrix_bytes[k];
  return p;
}

DevicePolicy hbm3e_policy() {  // the H200 (4800 GB/s)
  DevicePolicy p;
  p.sector_column_tiles = true;
  p.flat_skinny_unit_bytes = 2 * kFlatTileBytes;
  return p;
}

const PolicyRow& row_for(double dram_gbps) {
  static const PolicyRow rows[] = {
      {"hbm3e", 4000, hbm3e_policy()},
      {"hbm3", 0, hbm3_policy()},  // the H100 (3350 GB/s), and any GPU not above
  };
  for (const PolicyRow& r : rows)
    if (dram_gbps > r.min_dram_gbps || r.min_dram_gbps == 0) return r;
  return rows[1];
}

bool in_range(long v, long lo, long hi) {
  return v >= lo && v <= hi;
}

struct Overrides {
  std::mutex mu;
  bool read = false;
  std::string text;  // valid overrides, or empty
};
Overrides& overrides() {
  static Overrides o;
  return o;
}

std::string read_overrides() {
  const char* e = std::getenv("TMAKIT_POLICY");
  if (e == nullptr || *e == '\0') return {};
  DevicePolicy probe;
  if (std::string why = apply_policy_overrides(e, &probe); !why.empty()) {
    std::fprintf(stderr, "tmakit: TMAKIT_POLICY ignored: %s\n", why.c_str());
    return {};
  }
  return e;
}

}  // namespace

std::string apply_policy_overrides(const std::string& text, DevicePolicy* p) {
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) return "'" + item + "' is not FIELD=VALUE";
    const std::string field = item.substr(0, eq), value = item.substr(eq + 1);
    if (field == "strip_tile") {
      int r = 0, c = 0;
      char tail = 0;
      if (std::sscanf(value.c_str(), "%dx%d%c", &r, &c, &tail) != 2 || r < 32 || c < 32 ||
          r % 32 != 0 || c % 32 != 0 || r * (c | 1) > 48 * 1024)
        return "strip_tile '" + value + "' is not RxC, multiples of 32 within 48 KB at 1 B";
      p->strip_tile_rows = r;
      p->strip_tile_cols = c;
      continue;
    }
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') return field + " '" + value + "' is not an integer";
    struct Field {
      const char* name;
      long lo, hi;
      int* at;
    };
    auto out_of_range = [&](long lo, long hi) {
      return field + " " + value + " is out of its range (" + std::to_string(lo) + ".." +
             std::to_string(hi) + ")";
    };
    // Per-element-size fields: NAME sets every size's entry, NAME_eE (E = 1, 2, 4, 8, 16) one.
    const Field per_size[] = {
        {"permute_transpose_min_side_bytes", 0, 1 << 20, p->permute_transpose_min_side_bytes},
        {"permute_transpose_min_matrix_bytes", 0, 1 << 30, p->permute_transpose_min_matrix_bytes},
        {"permute_wide_transpose_min_side_bytes", 0, 1 << 20,
         p->permute_wide_transpose_min_side_bytes},
        {"permute_rows_min_bytes", 1, 1 << 20, p->permute_rows_min_bytes},
        {"permute_tma_min_row_bytes", 1, 1 << 30, p->permute_tma_min_row_bytes},
        {"permute_tile_min_fill_pct", 0, 101, p->permute_tile_min_fill_pct},
    };
    static const char* const kSizeSuffixes[] = {"_e1", "_e2", "_e4", "_e8", "_e16"};
    const Field* sized = nullptr;
    int entry = -1;  // 5: every size
    for (const Field& f : per_size) {
      const std::string name = f.name;
      if (field.compare(0, name.size(), name) != 0) continue;
      const std::string suffix = field.substr(name.size());
      for (int k = 0; k < 5; ++k)
        if (suffix == kSizeSuffixes[k]) entry = k;
      if (suffix.empty()) entry = 5;
      if (entry >= 0) sized = &f;
      break;
    }
    if (sized != nullptr) {
      if (!in_range(v, sized->lo, sized->hi)) return out_of_range(sized->lo, sized->hi);
      for (int k = 0; k < 5; ++k)
        if (entry == 5 || entry == k) sized->at[k] = static_cast<int>(v);
      continue;
    }
    int column_tiles = p->sector_column_tiles ? 1 : 0, unit = p->flat_unit_bytes;
    int box_least_waste = p->permute_box_least_waste ? 1 : 0;
    int box_whole_runs = p->permute_box_whole_runs ? 1 : 0;
    int whole_runs_past_registers = p->permute_box_whole_runs_past_registers ? 1 : 0;
    int box_words = p->permute_box_words ? 1 : 0;
    int origin_once = p->permute_box_origin_once ? 1 : 0;
    int box_pipeline = p->permute_box_pipeline ? 1 : 0;
    int box_async = p->permute_box_async ? 1 : 0;
    int box_pad = p->permute_box_pad ? 1 : 0;
    int row_tables = p->permute_box_row_tables ? 1 : 0;
    int overlap_edges = p->permute_box_overlap_edges ? 1 : 0;
    int rows_as_elements = p->permute_rows_as_elements ? 1 : 0;
    int src_runs = p->permute_box_src_runs ? 1 : 0;
    int dst_runs = p->permute_box_dst_runs ? 1 : 0;
    int dst_registers = p->permute_box_dst_registers ? 1 : 0;
    int first_early = p->permute_box_first_copies_early ? 1 : 0;
    int wider_words = p->permute_box_past_static_for_wider_words ? 1 : 0;
    const Field fields[] = {
        {"sector_column_tiles", 0, 1, &column_tiles},
        {"sector_bytes", 16, 128, &p->sector_bytes},
        {"flat_unit_bytes", 4096, 32768, &unit},
        {"flat_skinny_unit_bytes", 4096, 32768, &p->flat_skinny_unit_bytes},
        {"flat_table_max_rows", 0, kFlatTableMaxRows, &p->flat_limits.max_rows},
        {"flat_batch_table_bytes", 0, 8, &p->flat_limits.batch_max_elem_bytes},
        {"flat_max_matrix_bytes", 0, 98304, &p->flat_limits.batch_max_matrix_bytes},
        {"bulk_flat_stages", 1, 4, &p->bulk_flat_stages},
        {"bulk_flat_ctas", 1, 8, &p->bulk_flat_ctas_per_sm},
        {"bulk_flat_unit_bytes", 4096, 65536, &p->bulk_flat_unit_bytes},
        {"permute_box_registers_min_bytes", 1, 32, &p->permute_box_registers_min_bytes},
        {"permute_box_registers_elements_max_bytes", 0, 16,
         &p->permute_box_registers_elements_max_bytes},
        {"permute_box_registers_src_elements_bytes", 0, 2,
         &p->permute_box_registers_src_elements_bytes},
        {"permute_box_registers_small_tensor_bytes", 0, 1 << 30,
         &p->permute_box_registers_small_tensor_bytes},
        {"permute_box_registers_box_fits_min_bytes", 0, 32,
         &p->permute_box_registers_box_fits_min_bytes},
        {"permute_box_registers_small_box_ratio", 0, 32, &p->permute_box_registers_small_box_ratio},
        {"permute_box_registers_words_min_bytes", 0, 32, &p->permute_box_registers_words_min_bytes},
        {"permute_box_cuts_first", 0, 2, &p->permute_box_cuts_first},
        {"permute_box_target_elems", 64, 16384, &p->permute_box_target_elems},
        {"permute_box_byte_stores_target_elems", 0, 16384,
         &p->permute_box_byte_stores_target_elems},
        {"permute_box_min_boxes_per_sm", 0, 64, &p->permute_box_min_boxes_per_sm},
        {"permute_box_min_boxes_max_bytes", 0, 16, &p->permute_box_min_boxes_max_bytes},
        // Up to 96 KB: the cp.async walks' second buffer then keeps the kernels under the 227 KB
        // an sm_90 block may opt in to.
        {"permute_box_max_smem_bytes", kBoxMaxSmemBytes, 96 * 1024, &p->permute_box_max_smem_bytes},
        {"permute_box_least_waste", 0, 1, &box_least_waste},
        {"permute_box_whole_runs", 0, 1, &box_whole_runs},
        {"permute_box_whole_runs_past_registers", 0, 1, &whole_runs_past_registers},
        {"permute_box_swizzle_bytes", 0, 128, &p->permute_box_swizzle_bytes},
        {"permute_box_words", 0, 1, &box_words},
        {"permute_box_origin_once", 0, 1, &origin_once},
        {"permute_box_pipeline", 0, 1, &box_pipeline},
        {"permute_box_words_small_block_max_bytes", 0, kBoxWordSmallMaxBytes,
         &p->permute_box_words_small_block_max_bytes},
        {"permute_box_async", 0, 1, &box_async},
        {"permute_box_sm_smem_bytes", 0, 1 << 20, &p->permute_box_sm_smem_bytes},
        {"permute_box_pad", 0, 1, &box_pad},
        {"permute_box_row_tables", 0, 1, &row_tables},
        {"permute_box_async_barriers", 1, 2, &p->permute_box_async_barriers},
        {"permute_box_overlap_edges", 0, 1, &overlap_edges},
        {"permute_rows_as_elements", 0, 1, &rows_as_elements},
        {"permute_box_src_runs", 0, 1, &src_runs},
        {"permute_box_dst_runs", 0, 1, &dst_runs},
        {"permute_box_narrow_dst_runs_max_bytes", 0, 2, &p->permute_box_narrow_dst_runs_max_bytes},
        {"permute_box_dst_registers", 0, 1, &dst_registers},
        {"permute_box_dst_registers_large_max_bytes", 0, 8,
         &p->permute_box_dst_registers_large_max_bytes},
        {"permute_box_dst_by_src_words_max_bytes", 0, 16,
         &p->permute_box_dst_by_src_words_max_bytes},
        {"permute_box_dst_blocks_max_bytes", 0, 16, &p->permute_box_dst_blocks_max_bytes},
        {"permute_reg_tile_max_bytes", 0, 8, &p->permute_reg_tile_max_bytes},
        {"permute_box_first_copies_early", 0, 1, &first_early},
        {"permute_box_past_static_for_wider_words", 0, 1, &wider_words},
        {"permute_tma_min_fill_pct", 0, 101, &p->permute_tma_min_fill_pct},
        {"permute_tma_max_box_ratio", 0, 1 << 20, &p->permute_tma_max_box_ratio},
        {"permute_rows_vector_min_bytes", 1, 16, &p->permute_rows_vector_min_bytes},
        {"permute_rows_vector_max_vecs", 0, 1 << 20, &p->permute_rows_vector_max_vecs},
        {"permute_rows_flat_max_vector_bytes", 0, 16, &p->permute_rows_flat_max_vector_bytes},
    };
    const Field* f = nullptr;
    for (const Field& x : fields)
      if (field == x.name) f = &x;
    if (f == nullptr) return "unknown field '" + field + "'";
    if (!in_range(v, f->lo, f->hi) ||
        (field == "sector_bytes" && v != 16 && v != 32 && v != 64 && v != 128) ||
        (field == "permute_box_swizzle_bytes" && v != 0 && v != 32 && v != 64 && v != 128))
      return out_of_range(f->lo, f->hi);
    *f->at = static_cast<int>(v);
    p->sector_column_tiles = column_tiles != 0;
    p->permute_box_least_waste = box_least_waste != 0;
    p->permute_box_whole_runs = box_whole_runs != 0;
    p->permute_box_whole_runs_past_registers = whole_runs_past_registers != 0;
    p->permute_box_words = box_words != 0;
    p->permute_box_origin_once = origin_once != 0;
    p->permute_box_pipeline = box_pipeline != 0;
    p->permute_box_async = box_async != 0;
    p->permute_box_pad = box_pad != 0;
    p->permute_box_row_tables = row_tables != 0;
    p->permute_box_overlap_edges = overlap_edges != 0;
    p->permute_rows_as_elements = rows_as_elements != 0;
    p->permute_box_src_runs = src_runs != 0;
    p->permute_box_dst_runs = dst_runs != 0;
    p->permute_box_dst_registers = dst_registers != 0;
    p->permute_box_first_copies_early = first_early != 0;
    p->permute_box_past_static_for_wider_words = wider_words != 0;
    if (field == "flat_unit_bytes") p->flat_unit_bytes = p->flat_skinny_unit_bytes = unit;
    if (field == "flat_max_matrix_bytes" && v > 0 && v < kFlatMaxMatrixBytes)
      p->flat_limits.batch_max_matrix_bytes = kFlatMaxMatrixBytes;
  }
  return {};
}

void reload_policy_overrides() {
  Overrides& o = overrides();
  std::lock_guard<std::mutex> lock(o.mu);
  o.text = read_overrides();
  o.read = true;
}

DevicePolicy device_policy(double dram_gbps, std::string* key) {
  const PolicyRow& row = row_for(dram_gbps);
  DevicePolicy p = row.policy;
  std::string text;
  {
    Overrides& o = overrides();
    std::lock_guard<std::mutex> lock(o.mu);
    if (!o.read) {
      o.text = read_overrides();
      o.read = true;
    }
    text = o.text;
  }
  if (!text.empty()) apply_policy_overrides(text, &p);
  if (key != nullptr) *key = std::string(row.name) + (text.empty() ? "" : "+" + text);
  return p;
}

}  // namespace tmakit
