#pragma once
// Reads the reference files in tests/reference/ (format: reference/reference_format.py).

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <litgrad/core/tensor.hpp>

namespace test {

struct ReferenceTensor {
  std::string role, name;
  litgrad::Tensor value;
};

struct ReferenceCase {
  std::string name;
  std::map<std::string, std::string> config;
  std::vector<ReferenceTensor> tensors;  // in file order

  // The tensor with this role and name; fails the test if there is none.
  litgrad::Tensor get(const std::string& role, const std::string& tensor_name) const {
    for (const auto& t : tensors)
      if (t.role == role && t.name == tensor_name) return t.value;
    FAIL("reference case " << name << " has no " << role << " " << tensor_name);
    return {};
  }
  bool has(const std::string& role, const std::string& tensor_name) const {
    for (const auto& t : tensors)
      if (t.role == role && t.name == tensor_name) return true;
    return false;
  }
  std::int64_t integer(const std::string& key) const { return std::stoll(config.at(key)); }
  bool flag(const std::string& key) const { return config.at(key) == "True"; }
};

inline std::vector<ReferenceCase> read_reference_file(const std::string& file_name) {
  const std::string path = std::string(LITGRAD_TEST_DATA_DIR) + "/" + file_name;
  std::ifstream file(path);
  REQUIRE_MESSAGE(file.good(), "cannot read " << path);
  std::vector<ReferenceCase> cases;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream s(line);
    std::string kind;
    s >> kind;
    if (kind == "case") {
      cases.emplace_back();
      s >> cases.back().name;
    } else if (kind == "config") {
      for (std::string kv; s >> kv;) cases.back().config[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else if (kind == "tensor") {
      ReferenceTensor t;
      std::string dtype, word;
      s >> t.role >> t.name >> dtype;
      litgrad::Shape shape;
      while (s >> word && word != ":") shape.push_back(std::stoll(word));
      std::vector<double> values;
      while (s >> word) values.push_back(std::stod(word));  // "nan", "inf" and "-inf" included
      const auto type = dtype == "f"   ? litgrad::DType::Float64
                        : dtype == "i" ? litgrad::DType::Int64
                                       : litgrad::DType::Bool;
      t.value = litgrad::tensor(values, shape, type);
      cases.back().tensors.push_back(t);
    }
  }
  return cases;
}

}  // namespace test
