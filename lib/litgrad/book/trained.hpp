#pragma once
/// \file book/trained.hpp
/// \brief Training a chapter's model once: each claim of a chapter runs in its own process, and
/// a model that several claims examine should be trained by the first and loaded by the rest.
/// The same for anything else that saves and loads, such as a tokenizer.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "litgrad/nn/module.hpp"

namespace litgrad::book {

/// \brief What train_once() keeps beside a module's parameters: named series of numbers, such
/// as the loss curves measured while training.
using Record = std::map<std::string, std::vector<double>>;

/// \brief Trains \p module once per build of the chapter's program: returns what \p train
/// returned, with \p module holding the parameters \p train left it with.
///
/// The first call for a \p name and \p seed, in any process of this program, runs `train()`
/// and writes the module's parameters (nn::save()) and the Record to files beside the program;
/// every later call, in this process or another, loads them into \p module and returns the
/// Record, bit for bit as trained. The files are named after the program's own bytes, so a
/// rebuilt chapter trains afresh (files of earlier builds are removed); a process that finds
/// another one training the same model waits for it instead of training it twice.
/// Beside them it writes the processor seconds the training took (`.seconds`), which the
/// book's runner adds to the time of a chapter run that loaded the model rather than trained
/// it, so that the chapter's budget counts the training wherever it happened.
///
/// \code
/// LanguageModel model(gen);
/// const book::Record curves = book::train_once("model", seed, model, [&] { return train(model, seed); });
/// \endcode
/// \throws ValueError for a \p name that is not a plain word (letters, digits, `_` and `-`),
/// or when \p train returns a series whose name is empty, starts with a space or spans lines
/// (spaces inside a name are kept).
Record train_once(const std::string& name, std::uint64_t seed, nn::Module& module,
                  const std::function<Record()>& train);

/// \brief train_once() for anything that is kept by saving it to a file and loading it back,
/// such as a BPETokenizer: \p save writes the trained thing to the path it is given, \p load
/// reads it back from that path and throws ValueError if it cannot, in which case it is trained
/// afresh. The rest is as for a module.
///
/// \code
/// BPETokenizer tokenizer;
/// book::train_once(
///     "tokenizer", 0, [&](const std::string& path) { tokenizer.save(path); },
///     [&](const std::string& path) { tokenizer.load(path); },
///     [&] { tokenizer.train(text, 4096); return book::Record(); });
/// \endcode
/// \throws ValueError for a \p name that is not a plain word (letters, digits, `_` and `-`).
Record train_once(const std::string& name, std::uint64_t seed, const std::function<void(const std::string&)>& save,
                  const std::function<void(const std::string&)>& load, const std::function<Record()>& train);

}  // namespace litgrad::book
