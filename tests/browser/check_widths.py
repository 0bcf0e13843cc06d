#!/usr/bin/python3
"""Every page of the built book at every width a reader's screen has, from a phone's 390 px up:
the page never scrolls sideways, no code or output block is wider than its column (which
would scroll it, and hide its last characters until scrolled), and from 832 px up no block
shown with line numbers (a chapter's code, 88 characters a line) has a line wrapped.

Between two of the widths where the book's stylesheet (docs/_static/litgrad.css) or furo's
changes the layout, a wider window never makes a column narrower (each column is a fixed
width, or a share of the window), and the blocks, fonts and figures do not depend on the
window: whatever overflows at some width overflows at the narrowest width of its layout too.
So each layout is checked at its narrowest: 390 px, and each edge (40em, 52em, 63em, 72em,
82em at 16 px to the em) and the pixel after it, for the rules that start at the edge and
those that start after it. ``--step PX`` checks every PX pixels from 390 to 1920 as well, with
the widths of common screens, to confirm it (--step 64 found the same as the edges alone on
the book and on a book whose blocks did not wrap; --step 16 takes about 8 s a page). Each page
is loaded once and the viewport resized through the widths. A finding names the page, the
width and what overflows.

usage: /usr/bin/python3 tests/browser/check_widths.py HTML_DIR [PAGE] [--step PX]
"""
import glob
import os
import sys

from selenium.common.exceptions import WebDriverException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_book import browser, resize, serve, wait_for_mathjax  # noqa: E402

# The narrowest width of each layout: a phone's, and both sides of each layout's edge.
NARROWEST = [390] + [w + d for w in (640, 832, 1008, 1152, 1312) for d in (0, 1)]
# With --step: phones, tablets and laptops (1280; 1366, 1440, 1536 among the widths from 1313
# to 1599 where furo shows both side columns at full width), and the pixel before each edge.
COMMON = [390, 412, 768, 1024, 1280, 1366, 1440, 1536, 1599, 1600, 1920]
BEFORE_EDGES = [w - 1 for w in (640, 832, 1008, 1152, 1312)]
HEIGHT = 900


def widths(step=None):
    if step is None:
        return sorted(NARROWEST)
    return sorted(set(NARROWEST) | set(COMMON) | set(BEFORE_EDGES) | set(range(390, 1921, step)))


MEASURE = """
const page = document.documentElement;
const found = [];
if (page.scrollWidth > window.innerWidth + 1)
  found.push('the page is ' + page.scrollWidth + ' px wide');
for (const pre of document.querySelectorAll('div.highlight pre, pre.literal-block')) {
  if (!pre.offsetParent) continue;  // folded away
  if (pre.scrollWidth > pre.clientWidth + 1) {
    const line = (pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '')).trim();
    found.push('a block of ' + pre.scrollWidth + ' px in a column of ' + pre.clientWidth + ': ' +
               line.slice(0, 60));
  }
}
// From 52em (832 px) up a block with line numbers shows each of its lines on one row: it
// is as many rows tall as it has numbers. (Narrower, a long line may wrap under its number.)
if (window.innerWidth >= 832) {
  for (const pre of document.querySelectorAll('div.highlight pre')) {
    const numbers = pre.querySelectorAll('span.linenos').length;
    if (!numbers || !pre.offsetParent) continue;
    const style = getComputedStyle(pre);
    const rows = (pre.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) /
                 parseFloat(style.lineHeight);
    if (rows > numbers + 0.5)
      found.push('a numbered block of ' + numbers + ' lines shown in ' + Math.round(rows) +
                 ' rows: a line wraps, from line ' + pre.querySelector('span.linenos').textContent.trim());
  }
}
if (page.scrollWidth > window.innerWidth + 1) {
  let widest = null, right = window.innerWidth;
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.right > right + 1 && r.width > 0 && getComputedStyle(el).position != 'fixed') {
      right = r.right;
      widest = el;
    }
  }
  if (widest) found.push('widest: <' + widest.tagName.toLowerCase() + ' class="' + widest.className +
                         '"> to ' + Math.round(right) + ' px');
}
return found;
"""


def pages(folder):
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.html"), recursive=True)):
        rel = os.path.relpath(path, folder)
        if not rel.startswith(("_static", "_sources", "_images", "_downloads")) and rel not in ("search.html",):
            yield rel


def problems(folder, only=None, step=None):
    server = serve(folder)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    sizes = widths(step)
    driver = browser(sizes[-1], HEIGHT)
    found = []
    try:
        for rel in pages(folder):
            if only and only not in rel:
                continue
            resize(driver, sizes[-1], HEIGHT)
            driver.get(f"{base}/{rel}")
            wait_for_mathjax(driver)
            for width in reversed(sizes):
                resize(driver, width, HEIGHT)
                for what in driver.execute_script(MEASURE):
                    found.append(f"{rel} at {width} px: {what}")
    except WebDriverException as e:
        found.append(f"the browser failed: {e.msg}")
    finally:
        driver.quit()
        server.shutdown()
    return found


def main():
    args = sys.argv[1:]
    step = None
    if "--step" in args:
        i = args.index("--step")
        step = int(args[i + 1])
        args = args[:i] + args[i + 2:]
    found = problems(args[0], args[1] if len(args) > 1 else None, step)
    for p in found:
        print(p)
    sizes = widths(step)
    print(f"{len(sizes)} widths from {sizes[0]} to {sizes[-1]} px; {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
