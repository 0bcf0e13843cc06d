"""litgrad_book: the Python half of the book, one module per idea.

* ``reader``: a chapter or exercise file read into its parts (title, sections, prose, code,
  folds, claims, declarations); a malformed file refused with its path and line.
* ``runner``: one chapter run for the book (``--emit``), its claims and time budget held.
* ``figures``: a chapter's figure descriptions drawn with matplotlib, wide and narrow.
* ``sphinx_extension``: the Sphinx extension that makes chapters pages, and the course,
  Claims, API and Performance pages.
* ``mutations``: the catalogues of plausible bugs and the ledger of what each turned red, its
  check, and how the pages show it; ``mutate``: ``tools/mutate``, which runs them;
  ``fingerprint``: what a file's code is without its prose, which decides when a result is
  out of date.
* ``exercises``: a chapter's exercises, their files and doctest's report of their tests;
  ``mistakes``: the catalogues of learners' mistakes, each applied and judged;
  ``exercise_page``: the Exercises section of a chapter's page, which reads both;
  ``exercise_tool``: ``tools/exercise``, the learner's command.
* ``margins``: how far each measured number sits inside its claim's bound, which the Claims
  page shows, listing the claims that check much less than they measure.
* ``performance``: ``tools/bench``'s report (``results.json``) and the Performance page's
  tables.

It lives in ``tools/`` beside the commands that use it, so that ``tools/exercise`` and
``tools/mutate`` (thin scripts) import it with no path set: Python puts a script's own folder
first on its path. ``conf.py`` adds ``tools/`` to the path in one line, and CMake runs the
package's modules and tests with ``PYTHONPATH`` set to ``tools/``
(``LITGRAD_BOOK_PYTHON``). Its tests are ``tests/python/``. Everything runs under Debian's
``/usr/bin/python3``, whose ``python3-*`` packages provide Sphinx and matplotlib.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The repository this package belongs to (its ``tools/`` folder holds the package)."""
