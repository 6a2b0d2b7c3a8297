#include <host/transpose/layout.hpp>

#include <string>
#include <host/error.hpp>

namespace tmakit {
namespace {

constexpr std::int64_t kMaxBytes = INT64_MAX / 2;  // what a signed 64-bit byte count holds

// a * b + c, or -1 when it would pass kMaxBytes (all arguments >= 0).
std::int64_t mul_add(std::int64_t a, std::int64_t b, std::int64_t c) {
  if (a != 0 && b > (kMaxBytes - c) / a) return -1;
  return a * b + c;
}

Status invalid(std::string msg) {
  return make_status(StatusCode::kInvalidArgument, std::move(msg));
}

std::string n(std::int64_t v) {
  return std::to_string(v);
}

// One side: `lines` lines of `line_elems` elements; resolves ld and the batch stride in place
// and returns its span in elements (-1 on overflow).
Status resolve_side(const char* side, std::int64_t lines, std::int64_t line_elems,
                    const char* line_name, std::int64_t batch, std::int64_t* ld,
                    std::int64_t* batch_stride, std::int64_t* span_elems) {
  // The fields' names, built only for a message (two heap strings per side and call cost
  // 0.2 us of transpose()'s host time on the H100 machine, measured with a since-deleted
  // launch-path experiment; docs/perf-guide.md section 2.8 has the host-time figures).
  auto ld_name = [side] { return std::string(side) + "_ld_elems"; };
  auto bs_name = [side] { return std::string(side) + "_batch_stride_elems"; };
  if (*ld < 0) return invalid(ld_name() + " must be >= 0 (0: dense), got " + n(*ld));
  if (*ld == 0) *ld = line_elems;
  if (*ld < line_elems)
    return invalid(ld_name() + " = " + n(*ld) + " is smaller than a " + side + " row (" +
                   line_name + " = " + n(line_elems) + " elements): rows would overlap");
  // One matrix spans (lines - 1) * ld + line_elems elements.
  const std::int64_t one = mul_add(lines - 1, *ld, line_elems);
  if (one < 0) return invalid(std::string(side) + " matrix is too large to address");
  if (*batch_stride < 0)
    return invalid(bs_name() + " must be >= 0 (0: dense), got " + n(*batch_stride));
  if (batch == 1 || *batch_stride == 0) {
    const std::int64_t dense = mul_add(lines, *ld, 0);
    if (dense < 0) return invalid(std::string(side) + " matrix is too large to address");
    *batch_stride = dense;
  } else if (*batch_stride < one) {
    return invalid(bs_name() + " = " + n(*batch_stride) + " is smaller than one " + side +
                   " matrix (" + n(one) + " elements: " + n(lines) + " rows of " + n(*ld) +
                   "): matrices of the batch would overlap");
  }
  *span_elems = mul_add(batch - 1, *batch_stride, one);
  if (*span_elems < 0)
    return invalid(std::string(side) + " batch of " + n(batch) +
                   " matrices is too large to address");
  return {};
}

}  // namespace

Status resolve_layout(std::int64_t rows, std::int64_t cols, int elem_bytes,
                      const MatrixLayout& layout, bool copy, ResolvedLayout* out) {
  if (layout.batch < 1) return invalid("batch must be >= 1 (got " + n(layout.batch) + ")");
  ResolvedLayout r;
  BatchStrides& st = r.strides;
  st.batch = layout.batch;
  st.src_ld_elems = layout.src_ld_elems;
  st.dst_ld_elems = layout.dst_ld_elems;
  st.src_batch_elems = layout.src_batch_stride_elems;
  st.dst_batch_elems = layout.dst_batch_stride_elems;
  std::int64_t src_span = 0, dst_span = 0;
  if (Status s = resolve_side("src", rows, cols, "cols", st.batch, &st.src_ld_elems,
                              &st.src_batch_elems, &src_span);
      !s)
    return s;
  // dst is cols x rows (a copy: rows x cols).
  if (Status s = resolve_side("dst", copy ? rows : cols, copy ? cols : rows, copy ? "cols" : "rows",
                              st.batch, &st.dst_ld_elems, &st.dst_batch_elems, &dst_span);
      !s)
    return s;
  if (src_span > kMaxBytes / elem_bytes || dst_span > kMaxBytes / elem_bytes)
    return invalid("batch of " + n(st.batch) + " matrices of " + n(rows) + " x " + n(cols) + " x " +
                   n(elem_bytes) + " bytes is too large to address");
  r.src_span_bytes = src_span * elem_bytes;
  r.dst_span_bytes = dst_span * elem_bytes;
  const std::int64_t dst_line = copy ? cols : rows, dst_lines = copy ? rows : cols;
  r.dense = st.src_ld_elems == cols && st.dst_ld_elems == dst_line &&
            (st.batch == 1 ||
             (st.src_batch_elems == rows * cols && st.dst_batch_elems == dst_lines * dst_line));
  *out = r;
  return {};
}

}  // namespace tmakit
