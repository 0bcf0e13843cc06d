"""An API page lists the chapters that use its header's names, read as the compiler reads them.

litgrad_book.sphinx_extension.names_used on a chapter's code: a use in a comment or a string is
none, nor std::'s namesake, a member reached with . or ->, or a name the chapter defines itself.
"""
import unittest

from litgrad_book import sphinx_extension


class NamesUsed(unittest.TestCase):
    def test_a_call_and_a_qualified_name_are_uses(self):
        code = "void f() {\n  auto y = litgrad::ones({2});\n  return sum(y);\n}\n"
        self.assertEqual(sphinx_extension.names_used(code, {"ones": "function", "sum": "function"}), {"ones", "sum"})

    def test_comments_and_strings_are_no_use(self):
        code = 'void f() {\n  // matmul here\n  const char* s = "matmul: shapes";\n}\n'
        self.assertEqual(sphinx_extension.names_used(code, {"matmul": "function"}), set())

    def test_std_namesakes_and_members_are_no_use(self):
        code = "double f(const Tensor& t, const Tensor* p) {\n  return std::cos(1.0) + t.abs() + p->mean();\n}\n"
        self.assertEqual(sphinx_extension.names_used(code, dict.fromkeys(["cos", "abs", "mean"], "function")), set())

    def test_a_name_the_chapter_defines_for_itself_is_its_own(self):
        code = ("constexpr double kU = 0x1p-53;\n"
                "int differing_bits(const Tensor& a, const Tensor& b) {\n  return 0;\n}\n"
                "void f() {\n  double total = sum(x) * kU;\n  return differing_bits(a, b) + total;\n}\n")
        names = {"kU": "variable", "differing_bits": "function", "sum": "function"}
        self.assertEqual(sphinx_extension.names_used(code, names), {"sum"})

    def test_a_using_declaration_is_a_use(self):
        code = "using book::kU;\ndouble bound(int n) { return n * kU; }\n"
        self.assertEqual(sphinx_extension.names_used(code, {"kU": "variable"}), {"kU"})

    def test_a_function_named_but_not_called_is_no_use(self):
        code = "void count(Counter* c) {\n  auto f = c->sum;\n  g(sum, 2);\n}\n"
        self.assertEqual(sphinx_extension.names_used(code, {"sum": "function"}), set())

    def test_a_parameter_of_the_chapters_own_is_its_own(self):
        code = "void count(std::vector<double>* operations = nullptr) {\n  operations->push_back(1);\n}\n"
        self.assertEqual(sphinx_extension.names_used(code, {"operations": "variable"}), set())
        self.assertEqual(sphinx_extension.names_used("double f(double x) { return x * kU; }\n",
                                                     {"kU": "variable"}), {"kU"})


if __name__ == "__main__":
    unittest.main()
