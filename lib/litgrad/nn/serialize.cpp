#include "litgrad/nn/serialize.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "litgrad/error.hpp"

namespace litgrad::nn {

namespace {

constexpr const char* kMagic = "litgrad state_dict";
constexpr int kVersion = 1;

struct Entry {
  std::string name;
  DType dtype = DType::Float64;
  Shape shape;
  std::vector<double> values;
};

DType dtype_named(const std::string& name, const std::string& where) {
  if (name == "Float64") return DType::Float64;
  if (name == "Int64") return DType::Int64;
  if (name == "Bool") return DType::Bool;
  throw ValueError(where + ": unknown dtype '" + name + "'");
}

}  // namespace

void save(const Module& module, const std::string& path) {
  const auto params = module.named_parameters();
  const std::string temporary = path + ".tmp." + std::to_string(static_cast<long long>(std::hash<std::string>{}(path) ^
                                                                                    reinterpret_cast<std::uintptr_t>(&module)));
  {
    std::ofstream f(temporary, std::ios::binary);
    if (!f) throw ValueError("save: cannot write " + path);
    f << kMagic << " " << kVersion << "\n" << "parameters " << params.size() << "\n";
    char number[40];
    for (const auto& [name, p] : params) {
      f << name << " " << to_string(p.dtype()) << " " << p.dim();
      for (std::int64_t n : p.shape()) f << " " << n;
      f << "\n";
      const double* v = p.data();
      for (std::int64_t i = 0; i < p.numel(); ++i) {
        std::snprintf(number, sizeof number, "%a", v[i]);
        f << (i ? " " : "") << number;
      }
      f << "\n";
    }
    f << "end\n";
    f.flush();
    if (!f) throw ValueError("save: cannot write " + path);
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw ValueError("save: cannot move the written file to " + path + ": " + error.message());
  }
}

void load(Module& module, const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ValueError("load: cannot read " + path);
  const std::string where = "load: " + path;
  std::stringstream whole;
  whole << file.rdbuf();
  const std::string text = whole.str();
  std::istringstream f(text);
  std::string line;
  if (!std::getline(f, line) || line.rfind(kMagic, 0) != 0)
    throw ValueError(where + " is not a litgrad state_dict (its first line should be '" + kMagic + " 1')");
  const int version = std::atoi(line.substr(std::string(kMagic).size()).c_str());
  if (version != kVersion)
    throw ValueError(where + " has format version " + std::to_string(version) + "; this litgrad reads version " +
                     std::to_string(kVersion));
  const std::string ending = "\nend\n";
  if (text.size() < ending.size() || text.compare(text.size() - ending.size(), ending.size(), ending) != 0)
    throw ValueError(where + " is truncated: it does not end with the line 'end'");
  std::size_t count = 0;
  if (!std::getline(f, line) || std::sscanf(line.c_str(), "parameters %zu", &count) != 1)
    throw ValueError(where + ": the second line should be 'parameters N'");
  std::vector<Entry> entries;
  for (std::size_t k = 0; k < count; ++k) {
    Entry e;
    std::string dtype;
    std::int64_t ndim = -1;
    if (!std::getline(f, line)) throw ValueError(where + " is truncated: it ends before parameter " + std::to_string(k + 1) + " of " + std::to_string(count));
    std::istringstream header(line);
    header >> e.name >> dtype >> ndim;
    if (!header || ndim < 0) throw ValueError(where + ": parameter " + std::to_string(k + 1) + " has a malformed header '" + line + "'");
    e.dtype = dtype_named(dtype, where);
    for (std::int64_t i = 0; i < ndim; ++i) {
      std::int64_t n = -1;
      header >> n;
      if (!header || n < 0) throw ValueError(where + ": parameter '" + e.name + "' has a malformed shape");
      e.shape.push_back(n);
    }
    if (!std::getline(f, line)) throw ValueError(where + " is truncated: the values of '" + e.name + "' are missing");
    const char* at = line.c_str();
    e.values.reserve(static_cast<std::size_t>(numel(e.shape)));
    for (std::int64_t i = 0; i < numel(e.shape); ++i) {
      char* end = nullptr;
      const double v = std::strtod(at, &end);
      if (end == at) throw ValueError(where + " is truncated: '" + e.name + "' has " + std::to_string(i) + " of its " + std::to_string(numel(e.shape)) + " values");
      e.values.push_back(v);
      at = end;
    }
    entries.push_back(std::move(e));
  }
  if (!std::getline(f, line) || line != "end") throw ValueError(where + " is truncated: it does not end with 'end'");
  // Check every name and shape against the module before changing anything.
  auto params = module.named_parameters();
  std::string names;
  for (const auto& [name, p] : params) names += (names.empty() ? "" : ", ") + name;
  if (entries.size() != params.size())
    throw ValueError(where + " holds " + std::to_string(entries.size()) + " parameters, the " + module.type() +
                     " has " + std::to_string(params.size()) + " (" + names + ")");
  for (std::size_t k = 0; k < params.size(); ++k) {
    const auto& [name, p] = params[k];
    if (entries[k].name != name)
      throw ValueError(where + ": parameter " + std::to_string(k + 1) + " is '" + entries[k].name + "', the " +
                       module.type() + " expects '" + name + "' (its parameters: " + names + ")");
    if (entries[k].shape != p.shape() || entries[k].dtype != p.dtype())
      throw ValueError(where + ": '" + name + "' is " + to_string(entries[k].dtype) + " " + to_string(entries[k].shape) +
                       " in the file and " + to_string(p.dtype()) + " " + to_string(p.shape()) + " in the module");
  }
  for (std::size_t k = 0; k < params.size(); ++k) {
    Tensor p = params[k].second;
    std::copy(entries[k].values.begin(), entries[k].values.end(), p.data());
  }
}

}  // namespace litgrad::nn
