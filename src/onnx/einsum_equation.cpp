#include "onnx/einsum_equation.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace openhtp::onnx_import {

std::string parse_einsum(std::string eq, const std::vector<size_t>& ranks, EinsumEquation* out) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  if (const size_t a = eq.find("->"); a != std::string::npos) {
    lhs = eq.substr(0, a);
    rhs = eq.substr(a + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  if (terms.size() != ranks.size()) {
    return "equation has " + std::to_string(terms.size()) + " operand(s), node has " + std::to_string(ranks.size());
  }
  // Ellipsis axes: digits '0'.., the last ones shared right-aligned.
  size_t ell = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const size_t e = terms[k].find("...");
    if (e == std::string::npos) continue;
    const size_t named = terms[k].size() - 3;
    if (ranks[k] < named) return "operand " + std::to_string(k) + " has fewer axes than the equation names";
    ell = std::max(ell, ranks[k] - named);
  }
  if (ell > 9) return "too many ellipsis axes";
  std::string ell_letters;
  for (size_t i = 0; i < ell; ++i) ell_letters += static_cast<char>('0' + i);
  for (size_t k = 0; k < terms.size(); ++k) {
    std::string& t = terms[k];
    if (const size_t e = t.find("..."); e != std::string::npos) {
      const size_t n = ranks[k] - (t.size() - 3);
      t = t.substr(0, e) + ell_letters.substr(ell - n) + t.substr(e + 3);
    }
    for (char ch : t) {
      if (!std::isalpha(static_cast<unsigned char>(ch)) && !std::isdigit(static_cast<unsigned char>(ch))) {
        return std::string("unexpected character '") + ch + "' in the equation";
      }
    }
    if (t.size() != ranks[k]) {
      return "operand " + std::to_string(k) + " has rank " + std::to_string(ranks[k]) + ", the equation names " +
             std::to_string(t.size()) + " axes";
    }
  }
  if (explicit_out) {
    if (const size_t e = rhs.find("..."); e != std::string::npos) rhs = rhs.substr(0, e) + ell_letters + rhs.substr(e + 3);
  } else {
    std::map<char, int> count;
    for (const auto& t : terms) {
      for (char ch : t) ++count[ch];
    }
    rhs = ell_letters;
    for (const auto& [ch, n] : count) {
      if (n == 1 && !std::isdigit(static_cast<unsigned char>(ch))) rhs += ch;
    }
  }
  out->inputs = terms;
  out->output = rhs;
  return "";
}

bool einsum_output_dims(const EinsumEquation& e, const std::vector<std::vector<int64_t>>& inputs,
                        std::vector<int64_t>* out) {
  if (inputs.size() != e.inputs.size()) return false;
  std::map<char, int64_t> size;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].size() != e.inputs[k].size()) return false;
    for (size_t a = 0; a < inputs[k].size(); ++a) {
      const int64_t d = inputs[k][a];
      if (d < 0) return false;
      auto [it, fresh] = size.emplace(e.inputs[k][a], d);
      if (fresh || it->second == d || d == 1) continue;
      if (it->second != 1) return false;
      it->second = d;
    }
  }
  out->clear();
  for (char ch : e.output) {
    const auto it = size.find(ch);
    if (it == size.end()) return false;
    out->push_back(it->second);
  }
  return true;
}

}  // namespace openhtp::onnx_import
