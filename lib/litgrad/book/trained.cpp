// book::train_once: a trained module (or anything that saves and loads) and its record, kept in
// files beside the chapter's program.

#include "litgrad/book/trained.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "litgrad/base/error.hpp"
#include "litgrad/nn/serialize.hpp"

namespace litgrad::book {

namespace {

namespace fs = std::filesystem;

// The program's own bytes, hashed (FNV-1a): a rebuilt program gets another key.
std::string program_key() {
  std::ifstream self("/proc/self/exe", std::ios::binary);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  char buffer[1 << 16];
  while (self.read(buffer, sizeof buffer) || self.gcount() > 0) {
    for (std::streamsize i = 0; i < self.gcount(); ++i)
      h = (h ^ static_cast<unsigned char>(buffer[i])) * 0x100000001b3ULL;
    if (!self) break;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// <program>.trained-<key>: the start of every file this build keeps. The first call removes the
// files that earlier builds of the program left (another key).
const std::string& base() {
  static const std::string path = [] {
    const fs::path exe = fs::read_symlink("/proc/self/exe");
    const std::string stem = exe.filename().string() + ".trained-";
    const std::string mine = stem + program_key();
    std::error_code ignored;  // another process may be removing the same files
    for (const auto& f : fs::directory_iterator(exe.parent_path(), ignored)) {
      const std::string name = f.path().filename().string();
      if (name.rfind(stem, 0) == 0 && name.rfind(mine, 0) != 0) fs::remove(f.path(), ignored);
    }
    return (exe.parent_path() / mine).string();
  }();
  return path;
}

// Holds an exclusive lock on a file for its lifetime: the processes of one program that want
// the same model take turns, and all but the first find it trained.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw ValueError("train_once: cannot open the lock file ", path);
    while (::flock(fd_, LOCK_EX) != 0) {
    }
  }
  ~FileLock() { ::close(fd_); }  // closing releases the lock
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// The record as text: a line `count name` per series (the name is the rest of the line, so it
// may hold spaces, as "held out" does), then its numbers as C's %a writes them, which carry
// every bit.
void write_record(const Record& record, const std::string& path) {
  for (const auto& [name, values] : record)
    if (name.empty() || name.find_first_of("\n\r") != std::string::npos || name.front() == ' ')
      throw ValueError(
          "train_once: a Record's series name must be one line, not empty and not starting with a space; got '", name,
          "'");
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  {
    std::ofstream f(partial);
    for (const auto& [name, values] : record) {
      f << values.size() << " " << name << "\n";
      for (double v : values) {
        char number[64];
        std::snprintf(number, sizeof number, "%a\n", v);
        f << number;
      }
    }
    if (!f) throw ValueError("train_once: cannot write ", partial);
  }
  fs::rename(partial, path);  // readers see all of it or nothing
}

bool read_record(Record& record, const std::string& path) {
  std::ifstream f(path);
  if (!f) return false;
  std::string name;
  std::size_t count = 0;
  while (f >> count && f.get() == ' ' && std::getline(f, name)) {
    std::vector<double>& values = record[name];
    for (std::size_t i = 0; i < count; ++i) {
      std::string number;
      if (!(f >> number)) return false;
      char* end = nullptr;
      values.push_back(std::strtod(number.c_str(), &end));
      if (*end != '\0') return false;
    }
  }
  return f.eof();
}

// The processor time this process has used, in seconds.
double processor_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

Record train_once(const std::string& name, std::uint64_t seed, nn::Module& module,
                  const std::function<Record()>& train) {
  return train_once(
      name, seed, [&](const std::string& path) { nn::save(module, path); },
      [&](const std::string& path) { nn::load(module, path); }, train);
}

Record train_once(const std::string& name, std::uint64_t seed, const std::function<void(const std::string&)>& save,
                  const std::function<void(const std::string&)>& load, const std::function<Record()>& train) {
  if (name.empty() ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    throw ValueError("train_once: name '", name, "' must be letters, digits, '_' and '-' only");
  const std::string stem = base() + "-" + name + "-seed" + std::to_string(seed);
  const FileLock lock(stem + ".lock");
  Record record;
  if (read_record(record, stem + ".record")) {  // written last, so the state is complete
    try {
      load(stem + ".state");
      return record;
    } catch (const ValueError&) {  // a file another version of the module wrote: train afresh
    }
  }
  const double start = processor_seconds();
  record = train();
  save(stem + ".state");
  {  // the training's processor time, which the book's runner adds to a run that loads it
    std::ofstream seconds(stem + ".seconds");
    seconds << processor_seconds() - start << "\n";
  }
  write_record(record, stem + ".record");
  return record;
}

}  // namespace litgrad::book
