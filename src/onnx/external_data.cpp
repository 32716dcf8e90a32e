#include "onnx/external_data.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "onnx/model.h"

namespace openhtp::onnx_import {

namespace {

namespace fs = std::filesystem;

bool parse_u64(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;  // does not fit in 64 bits
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

// A location is a relative path below the model's folder.
bool safe_location(const std::string& location) {
  if (location.empty()) return false;
  const fs::path p(location);
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return false;
  for (const auto& part : p) {
    if (part == "..") return false;
  }
  return true;
}

// Bytes the tensor's type and dims need (0: unknown type; SIZE_MAX: overflow).
uint64_t expected_bytes(const onnx::TensorProto& t) {
  const size_t esize = onnx_type::element_size(t.data_type());
  if (esize == 0) return 0;
  uint64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d != 0 && n > UINT64_MAX / static_cast<uint64_t>(d))) return UINT64_MAX;
    n *= static_cast<uint64_t>(d);
  }
  return n > UINT64_MAX / esize ? UINT64_MAX : n * esize;
}

class Resolver {
 public:
  explicit Resolver(fs::path dir) : dir_(std::move(dir)) {}

  bool resolve(onnx::TensorProto* t, std::string* error) {
    if (t->data_location() != onnx::TensorProto::EXTERNAL) return true;
    const std::string what = "tensor '" + t->name() + "': external data";
    std::string location;
    uint64_t offset = 0, length = 0;
    bool has_length = false;
    for (const auto& e : t->external_data()) {
      if (e.key() == "location") {
        location = e.value();
      } else if (e.key() == "offset") {
        if (!parse_u64(e.value(), &offset)) return fail(what + " offset '" + e.value() + "' is not a number", error);
      } else if (e.key() == "length") {
        if (!parse_u64(e.value(), &length)) return fail(what + " length '" + e.value() + "' is not a number", error);
        has_length = true;
      }
    }
    if (!safe_location(location)) {
      return fail(what + " location '" + location + "' must be a relative path inside the model's folder", error);
    }
    const uint64_t want = expected_bytes(*t);
    if (want == 0 || want == UINT64_MAX) return fail(what + ": element type or dims give no byte size", error);
    if (has_length && length != want) {
      return fail(what + " length " + std::to_string(length) + " is not the tensor's " + std::to_string(want) +
                      " bytes",
                  error);
    }
    std::ifstream* f = open(location, what, error);
    if (f == nullptr) return false;
    const uint64_t file_bytes = sizes_[location];
    if (offset > file_bytes || want > file_bytes - offset) {
      return fail(what + " [" + std::to_string(offset) + ", +" + std::to_string(want) + ") lies outside '" + location +
                      "' (" + std::to_string(file_bytes) + " bytes)",
                  error);
    }
    std::string bytes(want, '\0');
    f->seekg(static_cast<std::streamoff>(offset));
    if (!f->read(bytes.data(), static_cast<std::streamsize>(want))) return fail(what + ": cannot read '" + location + "'", error);
    t->set_raw_data(std::move(bytes));
    t->clear_external_data();
    t->set_data_location(onnx::TensorProto::DEFAULT);
    return true;
  }

 private:
  static bool fail(const std::string& message, std::string* error) {
    *error = message;
    return false;
  }

  std::ifstream* open(const std::string& location, const std::string& what, std::string* error) {
    if (auto it = files_.find(location); it != files_.end()) return &it->second;
    const fs::path path = dir_ / location;
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    std::ifstream f(path, std::ios::binary);
    if (ec || !f) {
      fail(what + " file '" + path.string() + "' cannot be opened", error);
      return nullptr;
    }
    sizes_[location] = size;
    return &files_.emplace(location, std::move(f)).first->second;
  }

  fs::path dir_;
  std::map<std::string, std::ifstream> files_;
  std::map<std::string, uint64_t> sizes_;
};

}  // namespace

bool load_external_data(const std::string& model_dir, onnx::ModelProto* model, std::string* error) {
  Resolver r(model_dir.empty() ? fs::path(".") : fs::path(model_dir));
  onnx::GraphProto* g = model->mutable_graph();
  for (auto& t : *g->mutable_initializer()) {
    if (!r.resolve(&t, error)) return false;
  }
  for (auto& n : *g->mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t() && !r.resolve(a.mutable_t(), error)) return false;
    }
  }
  return true;
}

}  // namespace openhtp::onnx_import
