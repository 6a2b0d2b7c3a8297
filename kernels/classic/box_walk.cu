// box_walk: permute_tile's box walk (kernels/permute/permute_tile.cu) as a transpose technique.
// What it adds: a matrix is the permutation (cols, rows) -> (rows, cols) of rank 2, a batch adds
// up to three dimensions, and the walk groups them into boxes of whole runs on both sides. Where
// dst rows are short (k x N at 1-2 B with k of a few dozen to a few hundred elements), the 2-D
// tiles split those rows' sectors between tiles, while a box spans whole short rows and as much
// of the long dimension as fills it (docs/perf-guide.md section 4.14). The decider ranks it from
// survey data like every other technique.
#include <kernels/common/permute_box.hpp>
#include <kernels/launchers.hpp>

namespace tmakit {

cudaError_t kernels::launch_box_walk(const LaunchArgs& t) {
  const BatchStrides& st = t.strides;
  // Element (b, j, i) of the batch, j < rows, i < cols: src[b's src offset + j * src_ld + i] ->
  // dst[b's dst offset + i * dst_ld + j]. As a permutation: dimension i (src stride 1, dst stride
  // dst_ld), dimension j (src_ld, 1), then the batch's dimensions b0, b1, b2 (BatchStrides).
  PermuteArgs a;
  a.src = t.src;
  a.dst = t.dst;
  a.elem_bytes = t.elem_bytes;
  a.stream = t.stream;
  a.sm_count = t.sm_count;
  a.cc = t.cc;
  PermuteGeometry& g = a.geo;
  g.rows = t.rows;
  g.cols = t.cols;
  g.src_row = st.src_ld_elems;
  g.src_col = 1;
  g.dst_row = 1;
  g.dst_col = st.dst_ld_elems;
  if (st.has_batch_dims()) {
    const std::int64_t n01 = st.batch_n0 * st.batch_n1;
    g.batch_extent[0] = st.batch_n0, g.src_batch[0] = st.src_batch_elems,
    g.dst_batch[0] = st.dst_batch_elems;
    g.batch_extent[1] = st.batch_n1, g.src_batch[1] = st.src_batch1_elems,
    g.dst_batch[1] = st.dst_batch1_elems;
    g.batch_extent[2] = n01 > 0 ? st.batch / n01 : 1, g.src_batch[2] = st.src_batch2_elems,
    g.dst_batch[2] = st.dst_batch2_elems;
  } else {
    g.batch_extent[0] = st.batch, g.src_batch[0] = st.src_batch_elems,
    g.dst_batch[0] = st.dst_batch_elems;
  }
  // The last element src holds: the walk's reads stay at or below it.
  std::int64_t last = (g.rows - 1) * g.src_row + (g.cols - 1) * g.src_col;
  for (int k = 0; k < 3; ++k) last += (g.batch_extent[k] - 1) * g.src_batch[k];
  a.src_span_bytes = (last + 1) * t.elem_bytes;
  set_permute_policy(t.policy, t.elem_bytes, g.rows * g.cols * g.batch() * t.elem_bytes, t.sm_count,
                     &a);
  a.dims = box_dims_of(g);
  // A line (one row or one column) has no second dimension to group: permute_tile's own walks.
  if (g.rows > 1 && g.cols > 1)
    if (const cudaError_t err = launch_permute_box(a, a.dims); err != cudaErrorNotSupported)
      return err;
  return launch_permute_tile(a);
}

}  // namespace tmakit
