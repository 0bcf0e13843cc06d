# Sphinx configuration of the litgrad book. CMake runs sphinx-build with this file and passes
# every build path with -D (breathe_projects.litgrad, litgrad_build_dir), so nothing here
# names a build folder. The source folder is the repository root, so that chapters/*.cpp are
# pages themselves; include_patterns keeps Sphinx to the book's own files.
import os
import sys

# The extension is the package litgrad_book, in tools/ beside the commands that share it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))

project = "litgrad"
author = "the litgrad developers"
copyright = "2026, the litgrad developers"

extensions = ["sphinx.ext.mathjax", "breathe", "litgrad_book.sphinx_extension"]
root_doc = "docs/index"
include_patterns = ["docs/*.rst", "docs/api/**.rst", "chapters/[0-9][0-9]_*.cpp"]
exclude_patterns = ["build*"]
templates_path = []
html_static_path = ["docs/_static"]

html_theme = "furo"
html_title = "litgrad"
html_favicon = "docs/_static/favicon.svg"
html_copy_source = False
html_show_sourcelink = False

# MathJax 2 from Debian's libjs-mathjax, copied into the site by the extension: no CDN.
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML"

breathe_projects = {}
breathe_default_project = "litgrad"
breathe_default_members = ("members",)
cpp_index_common_prefix = ["litgrad::"]
primary_domain = "cpp"
highlight_language = "cpp"
