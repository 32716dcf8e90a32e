// The op walk's driver (see opdef_cases.h): reads the op type strings of
// QnnOpDef.h, checks the backend's supported list against them and against
// the registered cases, and runs every case as a one-node graph through the
// QNN API (graphCreate → graphAddNode → graphFinalize → graphExecute with
// client buffers), comparing each output element with the case's formula.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "opdef_cases.h"
#include "qnn_test_util.h"

namespace qnntest::opdef {

namespace {

// Family name → its case factory; std::map so the walk's order is the same
// whatever order the static initialisers ran in.
std::map<std::string, CaseList (*)()>& registry() {
  static std::map<std::string, CaseList (*)()> r;
  return r;
}

}  // namespace

int register_cases(const char* family, CaseList (*make)()) {
  registry()[family] = make;
  return 0;
}

namespace {

// Every registered case, built once (after all static initialisers ran).
const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> v;
    for (const auto& [family, make] : registry()) {
      for (Case& c : make()) v.push_back(std::move(c));
    }
    return v;
  }();
  return cases;
}

// The op type strings of QnnOpDef.h: `#define QNN_OP_<X> "<TypeName>"` with an
// upper-case first letter (parameter names and the package name are lower case).
std::set<std::string> opdef_types() {
  std::ifstream in(OPENHTP_QNN_OPDEF_HEADER);
  std::set<std::string> types;
  const std::regex def(R"(^\s*#\s*define\s+QNN_OP_\w+\s+"([A-Z][^"]*)\")");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, def)) types.insert(m[1]);
  }
  return types;
}

std::vector<std::string> supported_ops(Qnn_BackendHandle_t backend) {
  uint32_t n = 0;
  const QnnBackend_OperationName_t* ops = nullptr;
  std::vector<std::string> names;
  if (api().backendGetSupportedOperations(backend, &n, &ops) != QNN_SUCCESS) return names;
  for (uint32_t i = 0; i < n; ++i) names.emplace_back(ops[i].name);
  return names;
}

// ---- value conversion --------------------------------------------------

// IEEE binary16 from float, round to nearest even (subnormals included).
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF);
  uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0u));
  int32_t e = exp - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: still right
  return static_cast<uint16_t>(sign | h);
}

float from_half(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  uint32_t x = sign | ((exp == 31 ? 0xFFu : exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

size_t element_size(Qnn_DataType_t t) {
  switch (t) {
    case QNN_DATATYPE_INT_8: case QNN_DATATYPE_UINT_8: case QNN_DATATYPE_BOOL_8:
    case QNN_DATATYPE_SFIXED_POINT_8: case QNN_DATATYPE_UFIXED_POINT_8:
      return 1;
    case QNN_DATATYPE_INT_16: case QNN_DATATYPE_UINT_16: case QNN_DATATYPE_FLOAT_16:
    case QNN_DATATYPE_SFIXED_POINT_16: case QNN_DATATYPE_UFIXED_POINT_16:
      return 2;
    case QNN_DATATYPE_INT_64: case QNN_DATATYPE_UINT_64: case QNN_DATATYPE_FLOAT_64:
      return 8;
    default:
      return 4;
  }
}

bool is_fixed(Qnn_DataType_t t) {
  return t == QNN_DATATYPE_SFIXED_POINT_8 || t == QNN_DATATYPE_SFIXED_POINT_16 || t == QNN_DATATYPE_SFIXED_POINT_32 ||
         t == QNN_DATATYPE_UFIXED_POINT_8 || t == QNN_DATATYPE_UFIXED_POINT_16 || t == QNN_DATATYPE_UFIXED_POINT_32;
}

bool is_float(Qnn_DataType_t t) {
  return t == QNN_DATATYPE_FLOAT_32 || t == QNN_DATATYPE_FLOAT_16 || t == QNN_DATATYPE_FLOAT_64;
}

// The stored integer range of a fixed-point type.
void fixed_range(Qnn_DataType_t t, double* lo, double* hi) {
  switch (t) {
    case QNN_DATATYPE_UFIXED_POINT_8: *lo = 0; *hi = 255; return;
    case QNN_DATATYPE_UFIXED_POINT_16: *lo = 0; *hi = 65535; return;
    case QNN_DATATYPE_UFIXED_POINT_32: *lo = 0; *hi = 4294967295.0; return;
    case QNN_DATATYPE_SFIXED_POINT_8: *lo = -128; *hi = 127; return;
    case QNN_DATATYPE_SFIXED_POINT_16: *lo = -32768; *hi = 32767; return;
    default: *lo = -2147483648.0; *hi = 2147483647.0; return;
  }
}

template <typename T>
void put(std::vector<uint8_t>& buf, size_t i, T v) {
  std::memcpy(buf.data() + i * sizeof(T), &v, sizeof(T));
}
template <typename T>
T get(const std::vector<uint8_t>& buf, size_t i) {
  T v;
  std::memcpy(&v, buf.data() + i * sizeof(T), sizeof(T));
  return v;
}

// The (scale, offset) of element i of `t`: its own, or its channel's for a
// per-axis encoding.
void encoding_of(const Tensor& t, size_t i, float* scale, int32_t* offset) {
  if (t.axis_scales.empty()) {
    *scale = t.scale;
    *offset = t.offset;
    return;
  }
  size_t inner = 1;
  for (size_t d = static_cast<size_t>(t.axis) + 1; d < t.dims.size(); ++d) inner *= t.dims[d];
  const size_t ch = (i / inner) % t.dims[static_cast<size_t>(t.axis)];
  *scale = t.axis_scales[ch];
  *offset = t.axis_offsets.empty() ? 0 : t.axis_offsets[ch];
}

// `t.values` in the representation of `t.type` (fixed point: q = round(v/scale) - offset, clamped).
std::vector<uint8_t> encode(const Tensor& t) {
  const Qnn_DataType_t type = t.type;
  const std::vector<double>& values = t.values;
  std::vector<uint8_t> buf(values.size() * element_size(type));
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (is_fixed(type)) {
      double lo, hi;
      fixed_range(type, &lo, &hi);
      float scale;
      int32_t offset;
      encoding_of(t, i, &scale, &offset);
      v = std::clamp(std::nearbyint(v / scale) - offset, lo, hi);
    }
    switch (type) {
      case QNN_DATATYPE_FLOAT_32: put(buf, i, static_cast<float>(v)); break;
      case QNN_DATATYPE_FLOAT_64: put(buf, i, v); break;
      case QNN_DATATYPE_FLOAT_16: put(buf, i, to_half(static_cast<float>(v))); break;
      case QNN_DATATYPE_BOOL_8: put(buf, i, static_cast<uint8_t>(v != 0.0)); break;
      case QNN_DATATYPE_INT_8: case QNN_DATATYPE_SFIXED_POINT_8: put(buf, i, static_cast<int8_t>(std::llround(v))); break;
      case QNN_DATATYPE_UINT_8: case QNN_DATATYPE_UFIXED_POINT_8: put(buf, i, static_cast<uint8_t>(std::llround(v))); break;
      case QNN_DATATYPE_INT_16: case QNN_DATATYPE_SFIXED_POINT_16: put(buf, i, static_cast<int16_t>(std::llround(v))); break;
      case QNN_DATATYPE_UINT_16: case QNN_DATATYPE_UFIXED_POINT_16: put(buf, i, static_cast<uint16_t>(std::llround(v))); break;
      case QNN_DATATYPE_INT_32: case QNN_DATATYPE_SFIXED_POINT_32: put(buf, i, static_cast<int32_t>(std::llround(v))); break;
      case QNN_DATATYPE_UINT_32: case QNN_DATATYPE_UFIXED_POINT_32: put(buf, i, static_cast<uint32_t>(std::llround(v))); break;
      case QNN_DATATYPE_INT_64: put(buf, i, static_cast<int64_t>(std::llround(v))); break;
      case QNN_DATATYPE_UINT_64: put(buf, i, static_cast<uint64_t>(std::llround(v))); break;
      default: break;
    }
  }
  return buf;
}

// Element i of `buf` as a real value (fixed point dequantized).
double decode(Qnn_DataType_t type, const std::vector<uint8_t>& buf, size_t i, float scale, int32_t offset) {
  double q = 0;
  switch (type) {
    case QNN_DATATYPE_FLOAT_32: return get<float>(buf, i);
    case QNN_DATATYPE_FLOAT_64: return get<double>(buf, i);
    case QNN_DATATYPE_FLOAT_16: return from_half(get<uint16_t>(buf, i));
    case QNN_DATATYPE_BOOL_8: case QNN_DATATYPE_UINT_8: case QNN_DATATYPE_UFIXED_POINT_8: q = get<uint8_t>(buf, i); break;
    case QNN_DATATYPE_INT_8: case QNN_DATATYPE_SFIXED_POINT_8: q = get<int8_t>(buf, i); break;
    case QNN_DATATYPE_INT_16: case QNN_DATATYPE_SFIXED_POINT_16: q = get<int16_t>(buf, i); break;
    case QNN_DATATYPE_UINT_16: case QNN_DATATYPE_UFIXED_POINT_16: q = get<uint16_t>(buf, i); break;
    case QNN_DATATYPE_INT_32: case QNN_DATATYPE_SFIXED_POINT_32: q = get<int32_t>(buf, i); break;
    case QNN_DATATYPE_UINT_32: case QNN_DATATYPE_UFIXED_POINT_32: q = get<uint32_t>(buf, i); break;
    case QNN_DATATYPE_INT_64: q = static_cast<double>(get<int64_t>(buf, i)); break;
    case QNN_DATATYPE_UINT_64: q = static_cast<double>(get<uint64_t>(buf, i)); break;
    default: return std::numeric_limits<double>::quiet_NaN();
  }
  return is_fixed(type) ? (q + offset) * static_cast<double>(scale) : q;
}

size_t element_count(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// A name gtest accepts: letters, digits and underscores.
std::string test_name(size_t index, const Case& c) {
  std::string s = c.op + "_" + c.label;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s + "_" + std::to_string(index);
}

std::string describe(const Case& c) {
  return "op " + c.op + (c.then_op.empty() ? "" : " -> " + c.then_op) + ", case '" + c.label + "'";
}

// ---- the tests ---------------------------------------------------------

class OpdefWalk : public QnnFixture {};

TEST_F(OpdefWalk, EveryListedOpTypeIsInQnnOpDef) {
  const std::set<std::string> known = opdef_types();
  ASSERT_GT(known.size(), 100u) << "could not read the op types of " << OPENHTP_QNN_OPDEF_HEADER;
  const std::vector<std::string> listed = supported_ops(backend_);
  ASSERT_FALSE(listed.empty());
  for (const std::string& op : listed) EXPECT_EQ(known.count(op), 1u) << "listed op type not in QnnOpDef.h: " << op;
}

TEST_F(OpdefWalk, EveryListedOpTypeHasACase) {
  std::set<std::string> covered;
  for (const Case& c : all_cases()) {
    covered.insert(c.op);
    if (!c.then_op.empty()) covered.insert(c.then_op);
  }
  std::vector<std::string> missing;
  for (const std::string& op : supported_ops(backend_)) {
    if (covered.count(op) == 0) missing.push_back(op);
  }
  std::string names;
  for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " listed op type(s) without an opdef case: " << names;
}

// Every case names an op type the backend lists (a typo would otherwise be a
// case that only ever tests a refusal).
TEST_F(OpdefWalk, EveryCaseNamesAListedOpType) {
  const std::vector<std::string> listed = supported_ops(backend_);
  const std::set<std::string> names(listed.begin(), listed.end());
  for (const Case& c : all_cases()) {
    EXPECT_EQ(names.count(c.op), 1u) << describe(c) << ": op type not listed";
    if (!c.then_op.empty()) {
      EXPECT_EQ(names.count(c.then_op), 1u) << describe(c) << ": then_op not listed";
    }
  }
}

class OpdefCase : public QnnFixture, public ::testing::WithParamInterface<size_t> {};

// One graph tensor of a case, with the storage its Qnn_Tensor_t points into.
struct Built {
  std::string name;
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
  std::vector<Qnn_ScaleOffset_t> axis_encodings;
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
};

void describe_tensor(Built& b, Qnn_TensorType_t type, const Tensor& spec) {
  b.dims = spec.dims;
  b.t = make_tensor(b.name.c_str(), type, b.dims, spec.type);
  if (is_fixed(spec.type) && !spec.axis_scales.empty()) {
    for (size_t c = 0; c < spec.axis_scales.size(); ++c) {
      b.axis_encodings.push_back({spec.axis_scales[c], spec.axis_offsets.empty() ? 0 : spec.axis_offsets[c]});
    }
    b.t.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
    b.t.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET;
    b.t.v1.quantizeParams.axisScaleOffsetEncoding = {spec.axis, static_cast<uint32_t>(b.axis_encodings.size()),
                                                     b.axis_encodings.data()};
  } else if (is_fixed(spec.type)) {
    b.t.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
    b.t.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_SCALE_OFFSET;
    b.t.v1.quantizeParams.scaleOffsetEncoding = {spec.scale, spec.offset};
  }
  if (spec.sparse_dims > 0) {
    // sparseParams exist in V2 only; V2 begins with V1's fields.
    const Qnn_TensorV1_t v1 = b.t.v1;
    Qnn_TensorV2_t v2 = QNN_TENSOR_V2_INIT;
    v2.name = v1.name;
    v2.type = v1.type;
    v2.dataFormat = QNN_TENSOR_DATA_FORMAT_SPARSE;
    v2.dataType = v1.dataType;
    v2.quantizeParams = v1.quantizeParams;
    v2.rank = v1.rank;
    v2.dimensions = v1.dimensions;
    v2.memType = v1.memType;
    v2.sparseParams.type = QNN_SPARSE_LAYOUT_HYBRID_COO;
    v2.sparseParams.hybridCoo = {spec.sparse_specified, spec.sparse_dims};
    b.t.version = QNN_TENSOR_VERSION_2;
    b.t.v2 = v2;
  }
}

TEST_P(OpdefCase, MatchesItsFormula) {
  const Case& c = all_cases()[GetParam()];
  if (!c.skip.empty()) GTEST_SKIP() << describe(c) << ": " << c.skip;
  const std::string what = describe(c);

  Qnn_GraphHandle_t graph = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "walk", nullptr, &graph), QNN_SUCCESS) << what;

  // Each Built on the heap, so the pointers its Qnn_Tensor_t holds stay valid.
  std::vector<std::unique_ptr<Built>> ins, outs, params;
  std::vector<Qnn_Tensor_t> in_tensors, out_tensors;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Tensor& spec = c.inputs[i];
    auto b = std::make_unique<Built>();
    b->name = "in" + std::to_string(i);
    describe_tensor(*b, spec.is_static ? QNN_TENSOR_TYPE_STATIC : QNN_TENSOR_TYPE_APP_WRITE, spec);
    ASSERT_EQ(spec.values.size(), element_count(spec.dims)) << what << ": in[" << i << "] values vs dims";
    b->data = encode(spec);
    if (spec.is_static) b->t.v1.clientBuf = {b->data.data(), static_cast<uint32_t>(b->data.size())};
    ASSERT_EQ(api().tensorCreateGraphTensor(graph, &b->t), QNN_SUCCESS) << what << ": in[" << i << "]";
    in_tensors.push_back(b->t);
    ins.push_back(std::move(b));
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    const Tensor& spec = c.outputs[i];
    auto b = std::make_unique<Built>();
    b->name = "out" + std::to_string(i);
    describe_tensor(*b, QNN_TENSOR_TYPE_APP_READ, spec);
    ASSERT_EQ(spec.values.size(), element_count(spec.dims)) << what << ": out[" << i << "] values vs dims";
    ASSERT_EQ(api().tensorCreateGraphTensor(graph, &b->t), QNN_SUCCESS) << what << ": out[" << i << "]";
    out_tensors.push_back(b->t);
    outs.push_back(std::move(b));
  }
  std::vector<Qnn_Param_t> qparams;
  for (const Param& p : c.params) {
    Qnn_Param_t q = QNN_PARAM_INIT;
    q.name = p.name.c_str();
    if (p.dims.empty()) {
      ASSERT_EQ(p.values.size(), 1u) << what << ": scalar param " << p.name;
      const double v = p.values[0];
      q.paramType = QNN_PARAMTYPE_SCALAR;
      q.scalarParam.dataType = p.type;
      switch (p.type) {
        case QNN_DATATYPE_FLOAT_32: q.scalarParam.floatValue = static_cast<float>(v); break;
        case QNN_DATATYPE_BOOL_8: q.scalarParam.bool8Value = v != 0.0; break;
        case QNN_DATATYPE_INT_32: q.scalarParam.int32Value = static_cast<int32_t>(v); break;
        case QNN_DATATYPE_UINT_8: q.scalarParam.uint8Value = static_cast<uint8_t>(v); break;
        case QNN_DATATYPE_INT_8: q.scalarParam.int8Value = static_cast<int8_t>(v); break;
        default: q.scalarParam.uint32Value = static_cast<uint32_t>(v); break;
      }
    } else {
      auto b = std::make_unique<Built>();
      b->name = "param_" + p.name;
      Tensor spec{p.type, p.dims, p.values};
      describe_tensor(*b, QNN_TENSOR_TYPE_STATIC, spec);
      ASSERT_EQ(p.values.size(), element_count(p.dims)) << what << ": param " << p.name << " values vs dims";
      b->data = encode(spec);
      b->t.v1.clientBuf = {b->data.data(), static_cast<uint32_t>(b->data.size())};
      // Tensor parameters are graph tensors too, as QNN's SampleApp creates them.
      ASSERT_EQ(api().tensorCreateGraphTensor(graph, &b->t), QNN_SUCCESS) << what << ": param " << p.name;
      q.paramType = QNN_PARAMTYPE_TENSOR;
      q.tensorParam = b->t;
      params.push_back(std::move(b));
    }
    qparams.push_back(q);
  }

  // A chain: `op` writes the NATIVE link, then_op reads it.
  Built link;
  std::vector<Qnn_Tensor_t> link_tensors;
  if (!c.then_op.empty()) {
    link.name = "link";
    describe_tensor(link, QNN_TENSOR_TYPE_NATIVE, c.link);
    ASSERT_EQ(api().tensorCreateGraphTensor(graph, &link.t), QNN_SUCCESS) << what << ": link";
    link_tensors.push_back(link.t);
  }
  std::vector<Qnn_Tensor_t>& first_out = c.then_op.empty() ? out_tensors : link_tensors;

  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = "node";
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = c.op.c_str();
  op.v1.numOfParams = static_cast<uint32_t>(qparams.size());
  op.v1.params = qparams.empty() ? nullptr : qparams.data();
  op.v1.numOfInputs = static_cast<uint32_t>(in_tensors.size());
  op.v1.inputTensors = in_tensors.data();
  op.v1.numOfOutputs = static_cast<uint32_t>(first_out.size());
  op.v1.outputTensors = first_out.data();
  auto log_lines = [] {
    std::string s;
    for (const std::string& l : LogCapture::instance().lines()) s += "\n  backend: " + l;
    return s;
  };
  ASSERT_EQ(api().graphAddNode(graph, op), QNN_SUCCESS) << what << ": graphAddNode" << log_lines();
  if (!c.then_op.empty()) {
    Qnn_OpConfig_t then = QNN_OPCONFIG_INIT;
    then.v1.name = "then";
    then.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    then.v1.typeName = c.then_op.c_str();
    then.v1.numOfInputs = 1;
    then.v1.inputTensors = link_tensors.data();
    then.v1.numOfOutputs = static_cast<uint32_t>(out_tensors.size());
    then.v1.outputTensors = out_tensors.data();
    ASSERT_EQ(api().graphAddNode(graph, then), QNN_SUCCESS) << what << ": graphAddNode (then_op)" << log_lines();
  }
  ASSERT_EQ(api().graphFinalize(graph, nullptr, nullptr), QNN_SUCCESS) << what << ": graphFinalize" << log_lines();

  // Execute: dynamic inputs with their data, outputs into pre-filled buffers.
  std::vector<Qnn_Tensor_t> exec_in;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (c.inputs[i].is_static) continue;
    Qnn_Tensor_t t = ins[i]->t;
    t.v1.clientBuf = {ins[i]->data.data(), static_cast<uint32_t>(ins[i]->data.size())};
    exec_in.push_back(t);
  }
  std::vector<std::vector<uint8_t>> got(outs.size());
  std::vector<Qnn_Tensor_t> exec_out;
  for (size_t i = 0; i < outs.size(); ++i) {
    got[i].assign(element_count(c.outputs[i].dims) * element_size(c.outputs[i].type), 0xA5);
    Qnn_Tensor_t t = outs[i]->t;
    t.v1.clientBuf = {got[i].data(), static_cast<uint32_t>(got[i].size())};
    exec_out.push_back(t);
  }
  ASSERT_EQ(api().graphExecute(graph, exec_in.data(), static_cast<uint32_t>(exec_in.size()), exec_out.data(),
                               static_cast<uint32_t>(exec_out.size()), nullptr, nullptr),
            QNN_SUCCESS)
      << what << ": graphExecute" << log_lines();

  for (size_t o = 0; o < c.outputs.size(); ++o) {
    const Tensor& spec = c.outputs[o];
    const bool exact = !is_float(spec.type) && !is_fixed(spec.type);  // bool and integer types
    int reported = 0;
    for (size_t i = 0; i < spec.values.size(); ++i) {
      const double want = spec.values[i];
      float scale;
      int32_t offset;
      encoding_of(spec, i, &scale, &offset);
      const double have = decode(spec.type, got[o], i, scale, offset);
      bool ok;
      if (exact) {
        ok = have == (spec.type == QNN_DATATYPE_BOOL_8 ? double(want != 0.0) : std::nearbyint(want));
      } else if (std::isnan(want)) {
        ok = std::isnan(have);
      } else if (std::isinf(want)) {
        ok = have == want;
      } else {
        ok = std::fabs(have - want) <= c.tolerance;
      }
      if (!ok && reported++ < 8) {
        ADD_FAILURE() << what << ": out[" << o << "] element " << i << ": got " << have << ", expected " << want
                      << (exact ? " (exact)" : " (tolerance " + std::to_string(c.tolerance) + ")");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Walk, OpdefCase, ::testing::Range<size_t>(0, all_cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return test_name(info.param, all_cases()[info.param]);
                         });

}  // namespace
}  // namespace qnntest::opdef
