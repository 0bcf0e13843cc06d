// The main() of every chapter: it parses the chapter's command line, runs its claims with
// doctest, prints the account and the count of claims that held, and writes what --emit asks.
// Linked into each chapter through the CMake target litgrad::book_main.

#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "litgrad/base/error.hpp"
#include "litgrad/book/chapter.hpp"
#include "litgrad/core/random.hpp"

namespace {

// Tells the book which claim is running and whether it held.
struct ClaimListener : doctest::IReporter {
  explicit ClaimListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  // Each claim starts from the default generator a process starts with, as it does when CTest
  // runs it alone: in one process (the book's run, tools/mutate) a claim's draws never depend
  // on which claims ran before it.
  void test_case_start(const doctest::TestCaseData& t) override {
    litgrad::default_generator().manual_seed(0);
    litgrad::book::detail::begin_claim(t.m_name, t.m_file.c_str(), t.m_line);
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& s) override {
    litgrad::book::detail::end_claim(s.testCaseSuccess);
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("litgrad-book", 1, ClaimListener);

}  // namespace

int main(int argc, char** argv) {
  namespace book = litgrad::book;
  book::detail::Options options;
  try {
    options = book::detail::parse_arguments(argc, argv);
  } catch (const litgrad::ValueError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  if (options.help) {
    std::cout << book::detail::usage(argv[0]) << "\n";
    return 0;
  }
  std::vector<const char*> args{argv[0], "--no-version", "--no-intro"};
  for (const auto& a : options.doctest_args) args.push_back(a.c_str());
  doctest::Context context;
  context.applyCommandLine(static_cast<int>(args.size()), args.data());
  const int status = context.run();
  if (context.shouldExit()) return status;  // a query such as --list-test-cases
  // A filter that selects no claim is a mistake, never a pass: CTest runs each claim as
  // --test-case=NAME, and a name that its discovery split (at a ";") would select nothing.
  if (!options.test_case_filters.empty() && book::detail::claims().empty()) {
    std::cerr << argv[0] << ": no claim matches --test-case=" << options.test_case_filters.front()
              << "; --list-test-cases lists the claims' names\n";
    return 1;
  }
  book::out() << book::detail::summary_line() << "\n";
  if (!options.emit_dir.empty()) book::detail::write_emitted(options.emit_dir);
  return status;
}
