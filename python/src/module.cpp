// The Python module `tmakit._tmakit`: the C++ API over raw device addresses, element counts and
// strides. The array handling (DLPack / __cuda_array_interface__, torch and CuPy streams, output
// allocation, strided views) is python/tmakit/__init__.py's; this file only converts arguments
// and turns a failed Status into an exception carrying tmakit's message.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <tmakit/permute.hpp>
#include <tmakit/plan.hpp>
#include <tmakit/tensor_map.hpp>
#include <tmakit/tmakit.hpp>

namespace nb = nanobind;
using namespace tmakit;

namespace {

// What ran: (technique, fallback reason), or a Python exception with the message.
std::pair<std::string, std::string> result(const Status& s) {
  if (!s) {
    if (s.code == StatusCode::kInvalidArgument || s.code == StatusCode::kUnsupported)
      throw nb::value_error(s.message.c_str());
    throw std::runtime_error(s.message);
  }
  return {s.variant, s.fallback_reason};
}

TransposeOptions options(const std::string& variant, std::uintptr_t stream, bool synchronize) {
  TransposeOptions o;
  o.variant = variant;
  o.stream = reinterpret_cast<cudaStream_t>(stream);
  o.synchronize = synchronize;
  return o;
}

// The accumulate type named as tmakit's to_string(DataType) names it.
DataType data_type(const std::string& name) {
  for (DataType t :
       {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64, DataType::kI32})
    if (name == to_string(t)) return t;
  throw nb::value_error(("transpose_accumulate: dtype '" + name +
                         "' is not one of float16, bfloat16, float32, float64, int32")
                            .c_str());
}

nb::dict variant_dict(const VariantInfo& v) {
  nb::dict d;
  d["token"] = v.token;
  d["description"] = v.description;
  d["kind"] = to_string(v.kind);
  d["min_cc"] = v.min_cc;
  d["uses_tma"] = v.uses_tma;
  std::vector<int> sizes;
  for (int e : {1, 2, 4, 8, 16})
    if (v.supports_elem_bytes(e)) sizes.push_back(e);
  d["elem_bytes"] = sizes;
  return d;
}

// A row-major tensor of `shape` elements of `elem_bytes`, `pitch_bytes` apart per outer
// dimension, read in boxes of `box`: the spec validate() and describe() take.
TensorMapSpec spec_of(const std::vector<std::uint64_t>& shape,
                      const std::vector<std::uint32_t>& box, int elem_bytes,
                      const std::vector<std::uint64_t>& pitch_bytes, int swizzle_bytes,
                      std::uintptr_t address) {
  if (shape.empty() || shape.size() > static_cast<std::size_t>(kTmaMaxRank))
    throw nb::value_error("tensormap: shape must have 1 to 5 dimensions");
  if (box.size() != shape.size())
    throw nb::value_error("tensormap: box must have one extent per dimension of shape");
  TensorMapSpec s;
  switch (elem_bytes) {
    case 1:
      s.type = TmaType::kU8;
      break;
    case 2:
      s.type = TmaType::kU16;
      break;
    case 4:
      s.type = TmaType::kU32;
      break;
    case 8:
      s.type = TmaType::kU64;
      break;
    default:
      throw nb::value_error("tensormap: elem_bytes must be 1, 2, 4 or 8");
  }
  switch (swizzle_bytes) {
    case 0:
      s.swizzle = TmaSwizzle::kNone;
      break;
    case 32:
      s.swizzle = TmaSwizzle::k32B;
      break;
    case 64:
      s.swizzle = TmaSwizzle::k64B;
      break;
    case 128:
      s.swizzle = TmaSwizzle::k128B;
      break;
    default:
      throw nb::value_error("tensormap: swizzle must be 0, 32, 64 or 128 (bytes)");
  }
  s.rank = static_cast<int>(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s.shape[i] = shape[i];
    s.box[i] = box[i];
  }
  // Dense pitches unless given: dimension i's pitch = the bytes of one step of dimension i.
  std::uint64_t inner = static_cast<std::uint64_t>(elem_bytes);
  for (std::size_t i = shape.size(); i-- > 1;) {
    inner *= shape[i];
    s.pitch_bytes[i - 1] = inner;
  }
  if (!pitch_bytes.empty()) {
    if (pitch_bytes.size() != shape.size() - 1)
      throw nb::value_error("tensormap: pitch_bytes must have one entry per outer dimension");
    for (std::size_t i = 0; i < pitch_bytes.size(); ++i) s.pitch_bytes[i] = pitch_bytes[i];
  }
  s.address = reinterpret_cast<const void*>(address);
  return s;
}

TuneOptions tune_options(const std::string& tuning, int rounds, bool use_wisdom) {
  TuneOptions t;
  if (tuning == "heuristic")
    t.mode = Tuning::kHeuristic;
  else if (tuning == "measure")
    t.mode = Tuning::kMeasure;
  else
    throw nb::value_error(
        ("tuning '" + tuning + "' is not one of \"heuristic\", \"measure\"").c_str());
  t.rounds = rounds;
  t.use_wisdom = use_wisdom;
  return t;
}

// A made plan, or a Python exception with the message.
Plan made(const Status& s, Plan p) {
  result(s);
  return p;
}

}  // namespace

NB_MODULE(_tmakit, m) {
  m.doc() = "tmakit's C++ API over device addresses (use the tmakit package, not this module)";

  m.def(
      "transpose",
      [](std::uintptr_t src, std::uintptr_t dst, std::int64_t rows, std::int64_t cols,
         int elem_bytes, std::int64_t batch, std::int64_t src_ld, std::int64_t dst_ld,
         std::int64_t src_bs, std::int64_t dst_bs, const std::string& variant,
         std::uintptr_t stream, bool synchronize) {
        const MatrixLayout lay{batch, src_ld, dst_ld, src_bs, dst_bs};
        Status s;
        {
          nb::gil_scoped_release release;
          s = transpose(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), rows,
                        cols, elem_bytes, lay, options(variant, stream, synchronize));
        }
        return result(s);
      },
      nb::arg("src"), nb::arg("dst"), nb::arg("rows"), nb::arg("cols"), nb::arg("elem_bytes"),
      nb::arg("batch"), nb::arg("src_ld"), nb::arg("dst_ld"), nb::arg("src_batch_stride"),
      nb::arg("dst_batch_stride"), nb::arg("variant"), nb::arg("stream"), nb::arg("synchronize"));

  m.def(
      "transpose_accumulate",
      [](std::uintptr_t src, std::uintptr_t dst, std::int64_t rows, std::int64_t cols,
         const std::string& dtype, double alpha, double beta, std::int64_t batch,
         std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs, std::int64_t dst_bs,
         const std::string& variant, std::uintptr_t stream, bool synchronize) {
        const MatrixLayout lay{batch, src_ld, dst_ld, src_bs, dst_bs};
        const DataType t = data_type(dtype);
        Status s;
        {
          nb::gil_scoped_release release;
          s = transpose_accumulate(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst),
                                   rows, cols, t, alpha, beta, lay,
                                   options(variant, stream, synchronize));
        }
        return result(s);
      },
      nb::arg("src"), nb::arg("dst"), nb::arg("rows"), nb::arg("cols"), nb::arg("dtype"),
      nb::arg("alpha"), nb::arg("beta"), nb::arg("batch"), nb::arg("src_ld"), nb::arg("dst_ld"),
      nb::arg("src_batch_stride"), nb::arg("dst_batch_stride"), nb::arg("variant"),
      nb::arg("stream"), nb::arg("synchronize"));

  m.def(
      "permute",
      [](std::uintptr_t src, std::uintptr_t dst, const std::vector<std::int64_t>& extents,
         const std::vector<int>& perm, int elem_bytes, const std::vector<std::int64_t>& src_strides,
         const std::vector<std::int64_t>& dst_strides, const std::string& variant,
         std::uintptr_t stream, bool synchronize) {
        PermuteLayout lay{src_strides, dst_strides};
        Status s;
        {
          nb::gil_scoped_release release;
          s = permute(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), extents,
                      perm, elem_bytes, lay, options(variant, stream, synchronize));
        }
        return result(s);
      },
      nb::arg("src"), nb::arg("dst"), nb::arg("extents"), nb::arg("perm"), nb::arg("elem_bytes"),
      nb::arg("src_strides"), nb::arg("dst_strides"), nb::arg("variant"), nb::arg("stream"),
      nb::arg("synchronize"));

  nb::class_<Plan>(m, "Plan")
      .def(
          "run",
          [](const Plan& p, std::uintptr_t src, std::uintptr_t dst, std::uintptr_t stream) {
            Status s;
            {
              nb::gil_scoped_release release;
              s = p.run(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst),
                        reinterpret_cast<cudaStream_t>(stream));
            }
            return result(s);
          },
          nb::arg("src"), nb::arg("dst"), nb::arg("stream"))
      .def_prop_ro("variant", [](const Plan& p) { return p.variant(); })
      .def_prop_ro("fallback_reason", [](const Plan& p) { return p.fallback_reason(); })
      .def_prop_ro("source", [](const Plan& p) { return p.source(); })
      .def_prop_ro("tuning", [](const Plan& p) { return std::string(to_string(p.tuning())); })
      .def_prop_ro("measured_us", [](const Plan& p) { return p.measured_us(); })
      .def_prop_ro("tune_ms", [](const Plan& p) { return p.tune_ms(); })
      .def_prop_ro("timings", [](const Plan& p) { return p.timings(); })
      .def("explain", [](const Plan& p) { return p.explain(); });

  m.def(
      "make_plan",
      [](std::int64_t rows, std::int64_t cols, int elem_bytes, std::int64_t batch,
         std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs, std::int64_t dst_bs,
         const std::string& variant, bool synchronize, const std::string& tuning, int rounds,
         bool use_wisdom) {
        const MatrixLayout lay{batch, src_ld, dst_ld, src_bs, dst_bs};
        const TuneOptions t = tune_options(tuning, rounds, use_wisdom);
        Plan p;
        Status s;
        {
          nb::gil_scoped_release release;
          s = make_plan(&p, rows, cols, elem_bytes, lay, options(variant, 0, synchronize), t);
        }
        return made(s, p);
      },
      nb::arg("rows"), nb::arg("cols"), nb::arg("elem_bytes"), nb::arg("batch"), nb::arg("src_ld"),
      nb::arg("dst_ld"), nb::arg("src_batch_stride"), nb::arg("dst_batch_stride"),
      nb::arg("variant"), nb::arg("synchronize"), nb::arg("tuning"), nb::arg("rounds"),
      nb::arg("use_wisdom"));

  m.def(
      "make_accumulate_plan",
      [](std::int64_t rows, std::int64_t cols, const std::string& dtype, double alpha, double beta,
         std::int64_t batch, std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs,
         std::int64_t dst_bs, const std::string& variant, bool synchronize,
         const std::string& tuning, int rounds, bool use_wisdom) {
        const MatrixLayout lay{batch, src_ld, dst_ld, src_bs, dst_bs};
        const DataType type = data_type(dtype);
        const TuneOptions t = tune_options(tuning, rounds, use_wisdom);
        Plan p;
        Status s;
        {
          nb::gil_scoped_release release;
          s = make_accumulate_plan(&p, rows, cols, type, alpha, beta, lay,
                                   options(variant, 0, synchronize), t);
        }
        return made(s, p);
      },
      nb::arg("rows"), nb::arg("cols"), nb::arg("dtype"), nb::arg("alpha"), nb::arg("beta"),
      nb::arg("batch"), nb::arg("src_ld"), nb::arg("dst_ld"), nb::arg("src_batch_stride"),
      nb::arg("dst_batch_stride"), nb::arg("variant"), nb::arg("synchronize"), nb::arg("tuning"),
      nb::arg("rounds"), nb::arg("use_wisdom"));

  m.def("load_wisdom", [](const std::string& path) {
    WisdomLoad w;
    result(load_wisdom(path, &w));
    return std::make_tuple(w.entries, w.for_this_gpu, w.for_other_gpus);
  });
  m.def("save_wisdom", [](const std::string& path) { result(save_wisdom(path)); });
  m.def("export_wisdom", [] { return export_wisdom(); });
  m.def("clear_wisdom", [] { clear_wisdom(); });
  m.def("wisdom_size", [] { return wisdom_size(); });

  m.def(
      "explain_permute", [](const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                            int elem_bytes, const std::vector<std::int64_t>& src_strides,
                            const std::vector<std::int64_t>& dst_strides) {
        return explain_permute(extents, perm, elem_bytes, PermuteLayout{src_strides, dst_strides});
      });

  m.def("variants", [] {
    nb::list out;
    for (const VariantInfo& v : variants()) out.append(variant_dict(v));
    for (const VariantInfo& v : permute_variants()) out.append(variant_dict(v));
    return out;
  });

  // (ok, errors, warnings): each violation as (rule id, message).
  m.def("tensormap_validate",
        [](const std::vector<std::uint64_t>& shape, const std::vector<std::uint32_t>& box,
           int elem_bytes, const std::vector<std::uint64_t>& pitch_bytes, int swizzle_bytes,
           std::uintptr_t address, int cc) {
          const ValidationReport r =
              validate(spec_of(shape, box, elem_bytes, pitch_bytes, swizzle_bytes, address), cc);
          std::vector<std::pair<std::string, std::string>> errors, warnings;
          for (const RuleViolation& v : r.errors) errors.emplace_back(v.rule->id, v.message);
          for (const RuleViolation& v : r.warnings) warnings.emplace_back(v.rule->id, v.message);
          return std::make_tuple(r.ok(), errors, warnings);
        });
  m.def("tensormap_describe",
        [](const std::vector<std::uint64_t>& shape, const std::vector<std::uint32_t>& box,
           int elem_bytes, const std::vector<std::uint64_t>& pitch_bytes, int swizzle_bytes,
           std::uintptr_t address) {
          return describe(spec_of(shape, box, elem_bytes, pitch_bytes, swizzle_bytes, address));
        });
  m.def("tensormap_rules", [] {
    std::vector<std::pair<std::string, std::string>> rules;
    for (const TensorMapRule& r : tensor_map_rules()) rules.emplace_back(r.id, r.text);
    return rules;
  });
}
