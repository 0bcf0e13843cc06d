#include "litgrad/nn/serialize.hpp"

#include "litgrad/base/error.hpp"

namespace litgrad::nn {

void save(const Module& module, const std::string& path, StateDictFormat format) {
  litgrad::save(module.state_dict(), path, format);
}

void load(Module& module, const std::string& path) {
  const StateDict dict = litgrad::load(path);  // its errors name the file already
  try {
    module.load_state_dict(dict, true);
  } catch (const ValueError& e) {
    throw ValueError("load: ", path, ": ", e.what());
  }
}

}  // namespace litgrad::nn
