#!/usr/bin/python3
"""Opens every page of the built book in headless Chromium (Debian's chromium and
chromium-driver, driven by python3-selenium) and checks what a reader would see, against what
each chapter's source declares and what its run emitted. No number here belongs to a chapter.

usage: PYTHONPATH=tools /usr/bin/python3 tests/browser/check_book.py HTML_DIR SOURCE_ROOT BUILD_DIR SCREENSHOT_DIR
       (ctest runs it so; the package litgrad_book is in tools/)
With LITGRAD_SCREENSHOTS=1 in the environment it also takes screenshots of every page at both
widths into SCREENSHOT_DIR, for a person to look at; no check reads them, and they are over half
of the check's time (78 of 134 s measured), so CI goes without.

For every chapter (SOURCE_ROOT/chapters/NN_topic.cpp, read by litgrad_book.reader), its
page chapters/NN_topic.html, at 1280 px:
  its section headings, in order; every figure its prose shows, loaded, with its smallest text
  legible at the size shown; its formulas rendered where its prose has math, none in error; a
  held verdict for each of its claims, right after the claim's test; its folds, closed; no code
  block that scrolls sideways; links to its neighbours; the "on this page" contents visible;
  no console error; no host asked but 127.0.0.1.
and at a phone's 412 px: figures no wider than the screen and legible, the page not wider than
the screen. Also the course page (every chapter listed, linked), the Claims page (every claim,
readable at phone width), and that the site has no chapter page without a source.
Prints one line per check and per page a summary; "N passed, M failed" last; exits non-zero
if any check failed.
"""
import functools
import glob
import http.server
import json
import os
import sys
import tempfile
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from litgrad_book import exercises as exercise_files_of, mistakes, reader

DESKTOP, PHONE = (1280, 900), (412, 915)
# Sphinx's smart quotes turn ' and " into typographic ones; names are compared as written.
PLAIN_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})
LEGIBLE_PX = 10  # the smallest text a figure may show, in CSS pixels as displayed


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    handler = functools.partial(QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--window-size={width},{height}", "--hide-scrollbars",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='litgrad-chromium-')}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    resize(driver, width, height)
    return driver


def resize(driver, width, height):
    """Sets the viewport exactly (headless Chromium's windows are at least 500 px wide, so a
    phone's width is emulated, as its developer tools do)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def wait_for_mathjax(driver, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        done = driver.execute_script(
            "return !window.MathJax || (MathJax.Hub && MathJax.Hub.queue.pending === 0 && "
            "MathJax.Hub.queue.running === 0 && document.querySelectorAll('.MathJax_Processing').length === 0)")
        if done:
            return True
        time.sleep(0.2)
    return False


def wait_for_images(driver, seconds=10):
    end = time.time() + seconds
    while time.time() < end:
        if driver.execute_script("return Array.from(document.images).every(i => i.complete)"):
            return
        time.sleep(0.1)


class Checks:
    def __init__(self):
        self.results = []

    def __call__(self, name, ok, detail=""):
        self.results.append(bool(ok))
        print(f"{'ok    ' if ok else 'FAILED'} {name}" + (f": {detail}" if detail else ""))
        return ok


FIGURES_JS = """
return Array.from(document.querySelectorAll('figure')).map(f => {
  const shown = Array.from(f.querySelectorAll('img')).filter(i => i.offsetParent !== null);
  return [f.id, shown.map(i => [i.complete, i.naturalWidth, i.clientWidth,
    (Array.from(i.classList).find(c => c.startsWith('litgrad-text-')) || '').slice(13),
    i.getBoundingClientRect().right, i.className])];
});
"""

SCROLLING_CODE_JS = """
const blocks = Array.from(document.querySelectorAll('article div.highlight'));
return [blocks.length, blocks.filter(b => b.scrollWidth > b.clientWidth + 1).map(b =>
  (b.innerText.split('\\n').find(l => l.length > 0) || '').slice(0, 60))];
"""


def figure_problems(figures, expected_ids, window_width):
    """(problems, figures seen) for the figures a page shows at this width."""
    problems, seen = [], {f[0]: f[1] for f in figures if f[0]}
    for fid in expected_ids:
        shown = seen.get(fid)
        if not shown:
            problems.append(f"{fid}: not on the page")
            continue
        if len(shown) != 1:
            problems.append(f"{fid}: {len(shown)} drawings shown at once")
            continue
        complete, natural, client, text_px, right, _ = shown[0]
        if not complete or natural == 0:
            problems.append(f"{fid}: did not load")
        elif not text_px:
            problems.append(f"{fid}: its smallest text size is not recorded")
        elif int(text_px) * client / natural < LEGIBLE_PX:
            problems.append(f"{fid}: its smallest text is shown {int(text_px) * client / natural:.1f} px high, "
                            f"under {LEGIBLE_PX}")
        if right > window_width + 1:
            problems.append(f"{fid}: wider than the screen")
    return problems, len(seen)


def source_root_of(source):
    return os.path.dirname(os.path.dirname(os.path.abspath(source.path)))


def exercise_files(root, chapter):
    return exercise_files_of.exercise_files(root, chapter)


def solution_shown(spec, page_text):
    """Whether a line of the exercise's reference solution that neither its tests nor its
    starter contain appears on the page."""
    def lines(path):
        with open(path, encoding="utf-8") as f:
            return {" ".join(l.split()) for l in f if len(l.strip()) > 24 and not l.strip().startswith("//")}
    own = lines(spec[:-4] + ".solution.cpp") - lines(spec) - lines(spec[:-4] + ".starter.cpp")
    text = " ".join(page_text.split())
    return any(l in text for l in own)


def check_chapter_desktop(driver, check, base, source, book, shots):
    name = source.name
    driver.get(f"{base}/chapters/{name}.html")
    mathjax_done = wait_for_mathjax(driver)
    wait_for_images(driver)
    prefix = f"{name} at {DESKTOP[0]} px:"

    headings = [h.text.strip().rstrip("¶").strip().replace("’", "'").replace("“", '"').replace("”", '"')
                for h in driver.find_elements(By.CSS_SELECTOR, "article h2")]
    headings = [h for h in headings if h != "Exercises"]
    check(f"{prefix} its {len(source.sections)} section headings, in order", headings == source.sections,
          f"page has {headings}" if headings != source.sections else "")

    expected = [reader.figure_id(name, f) for f, _ in source.figures]
    problems, _ = figure_problems(driver.execute_script(FIGURES_JS), expected, DESKTOP[0])
    check(f"{prefix} its {len(expected)} figures loaded and legible", not problems, "; ".join(problems))

    rendered = driver.execute_script("return document.querySelectorAll('.MathJax_CHTML, .mjx-chtml').length")
    errors = driver.execute_script("return document.querySelectorAll('.MathJax_Error, .mjx-merror').length")
    raw = driver.execute_script(
        r"return Array.from(document.querySelectorAll('span.math, div.math')).filter(s => /\\\(|\\\[/.test("
        r"s.textContent) && !s.querySelector('.MathJax_CHTML, .mjx-chtml')).length")
    if source.has_math:
        check(f"{prefix} its math rendered ({rendered} formulas)", mathjax_done and rendered > 0 and not errors
              and not raw, f"done={mathjax_done} rendered={rendered} errors={errors} unrendered={raw}")
    else:
        check(f"{prefix} no math to render, and no formula in error", not errors and not raw)

    verdicts = driver.execute_script("""
      return Array.from(document.querySelectorAll('article .litgrad-claim')).map(e => {
        let before = e.previousElementSibling;
        return [e.textContent, before ? before.className : '', before ? before.textContent : ''];
      });""")
    held = [v for v in verdicts if "✓ held" in v[0]]
    misplaced = [i + 1 for i, v in enumerate(verdicts) if "highlight-cpp" not in v[1] or "TEST_CASE" not in v[2]]
    named = all(any(c.name in " ".join(v[0].replace("’", "'").split()) for v in verdicts)
                for c in source.claims)
    check(f"{prefix} a held verdict for each of its {len(source.claims)} claims, after the claim's test",
          len(held) == len(verdicts) == len(source.claims) and not misplaced and named,
          f"{len(held)} held of {len(verdicts)} boxes; boxes not right after a test: {misplaced}; "
          f"every claim named: {named}")
    if os.path.exists(os.path.join(source_root_of(source), "tests", "mutations", "ledger.json")):
        unmarked = [i + 1 for i, v in enumerate(verdicts)
                    if "Turned red by:" not in v[0] and "No catalogued mutation turns this claim red" not in v[0]]
        check(f"{prefix} each claim's box names the mutations that turned it red, or says none does",
              not unmarked, f"boxes without: {unmarked}")

    folds = driver.execute_script(
        "return Array.from(document.querySelectorAll('article details.litgrad-fold'))"
        ".filter(d => !d.closest('section#exercises')).map(d => d.open)")
    expected_folds = sum(1 for b in source.blocks if b.kind == "fold")
    check(f"{prefix} its {expected_folds} folds are there, closed", len(folds) == expected_folds and not any(folds),
          f"{len(folds)} folds, open: {sum(folds)}")

    exercises = exercise_files(source_root_of(source), name)
    shown = driver.execute_script("""
      const s = document.querySelector('section#exercises');
      if (!s) return null;
      return [Array.from(s.querySelectorAll('h3')).map(h => h.textContent.replace(/[¶#]$/, '').trim()
                .replace(/’/g, "'").replace(/[“”]/g, '"')),
              Array.from(s.querySelectorAll('details.litgrad-hint')).map(d => d.open), s.innerText,
              Array.from(s.querySelectorAll('details.litgrad-mistakes')).map(
                d => [d.open, Array.from(d.querySelectorAll('li')).map(li => li.textContent.trim())]),
              Array.from(s.querySelectorAll('details.litgrad-mistakes')).map(d => d.textContent).join(' ')];""")
    if exercises:
        titles = [reader.read(p, "exercise").title for p in exercises]
        leaked = [os.path.basename(p) for p in exercises if solution_shown(p, shown[2] if shown else "")]
        check(f"{prefix} its {len(exercises)} exercises, each with its hint folded, and no solution",
              shown is not None and shown[0] == titles and len(shown[1]) == len(exercises)
              and not any(shown[1]) and not leaked,
              f"titles {shown[0] if shown else None}; hints {shown[1] if shown else None}; solutions shown: {leaked}")
        catalogue = mistakes.load(os.path.join(source_root_of(source), "chapters", "exercises", name,
                                               "mistakes.toml"))
        expected = [[m["name"] for m in catalogue if m["exercise"] == int(os.path.basename(p).split("_")[0])]
                    for p in exercises]
        expected = [names for names in expected if names]
        listed = [[n.translate(PLAIN_QUOTES) for n in names]
                  for _, names in shown[3]] if shown else None
        folded = " ".join(shown[4].split()) if shown else ""
        wrong_code = [m["name"] for m in catalogue
                      if any(len(l.strip()) > 24 and " ".join(l.split()) in folded for l in m["replace"].splitlines())
                      or " ".join(m["hint"].split())[:40] in folded.translate(PLAIN_QUOTES)]
        check(f"{prefix} the mistakes each exercise's tests catch, by name, folded, without their code",
              listed == expected and not any(o for o, _ in shown[3]) and not wrong_code,
              f"listed {listed}, expected {expected}; open: {[o for o, _ in shown[3]] if shown else None}; "
              f"code or hint shown for: {wrong_code}")
    else:
        check(f"{prefix} no exercises, and no Exercises section", shown is None)

    count, scrolling = driver.execute_script(SCROLLING_CODE_JS)
    check(f"{prefix} none of its {count} code blocks scrolls sideways", not scrolling,
          f"{len(scrolling)} scroll: {scrolling[:5]}")

    names = [s.name for s in book]
    i = names.index(name)
    links = driver.execute_script(
        "return Array.from(document.querySelectorAll('.litgrad-chapter-nav a')).map(a => a.getAttribute('href'))")
    wanted = [f"{n}.html" for n in (names[i - 1:i] + names[i + 1:i + 2])] + ["../docs/index.html"]
    missing = [w for w in wanted if not any(l.split("#")[0].endswith(w) for l in links)]
    check(f"{prefix} links to the course and its neighbouring chapters", not missing, f"missing {missing}")

    toc = driver.execute_script("""
      const t = document.querySelector('.toc-drawer');
      if (!t) return null;
      const r = t.getBoundingClientRect(), s = getComputedStyle(t);
      return [r.left, r.width, s.display, s.visibility,
              document.querySelectorAll('.toc-drawer .toc-tree a').length];""")
    check(f"{prefix} its contents ('on this page') are visible", toc and toc[0] < DESKTOP[0] and toc[1] > 0
          and toc[2] != "none" and toc[3] == "visible" and toc[4] >= len(source.sections), f"{toc}")

    summary = (f"{name}: {len(headings)} headings, {len(expected)} figures, {rendered} formulas, "
               f"{len(held)} verdicts, {len(folds)} folds, {len(scrolling)} of {count} code blocks scroll "
               f"at {DESKTOP[0]} px")
    desktop_screenshot(driver, shots, name)
    return summary


def check_phone(driver, check, base, page, label, shots, expected_figures=()):
    driver.get(f"{base}/{page}")
    wait_for_mathjax(driver)
    wait_for_images(driver)
    problems, _ = figure_problems(driver.execute_script(FIGURES_JS), expected_figures, PHONE[0])
    if expected_figures:
        check(f"{label} at {PHONE[0]} px: its {len(expected_figures)} figures fit the screen and are legible",
              not problems, "; ".join(problems))
    width = driver.execute_script(
        "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    check(f"{label} at {PHONE[0]} px: the page is no wider than the screen", width <= PHONE[0] + 1,
          f"{width} px wide")
    screenshot(driver, shots, f"{os.path.basename(page)[:-5]}-phone", PHONE, 40000)


def screenshot(driver, shots, name, size, tallest):
    """The whole page, up to `tallest` px, into shots/name.png, when screenshots are asked for
    (shots is not None); the viewport is then set back to `size`."""
    if shots is None:
        return
    height = driver.execute_script("return document.documentElement.scrollHeight")
    resize(driver, size[0], min(height, tallest))
    time.sleep(0.3)
    driver.save_screenshot(os.path.join(shots, f"{name}.png"))
    resize(driver, *size)


def desktop_screenshot(driver, shots, name):
    screenshot(driver, shots, name, DESKTOP, 60000)


def console_and_hosts(driver, check, label):
    console = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    check(f"{label}: the console has no errors", not console, json.dumps(console)[:500] if console else "")
    hosts = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = urllib.parse.urlparse(message["params"]["request"]["url"])
            if url.scheme in ("http", "https", "ws", "wss", "ftp"):
                hosts.add(url.hostname)
    check(f"{label}: no host asked but 127.0.0.1", hosts <= {"127.0.0.1"}, f"hosts: {sorted(hosts)}")


def main():
    html_dir, source_root, build_dir, shots = sys.argv[1:5]
    if os.environ.get("LITGRAD_SCREENSHOTS") == "1":
        os.makedirs(shots, exist_ok=True)
    else:
        shots = None
    book = [reader.read(p) for p in reader.chapter_files(source_root)]
    check = Checks()
    pages = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(html_dir, "chapters", "*.html")))
    check("the site has a page for every chapter and none for a chapter that is gone",
          pages == [s.name for s in book], f"pages {pages}, chapters {[s.name for s in book]}")

    server = serve(html_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    summaries = []
    driver = browser(*DESKTOP)
    try:
        driver.get(f"{base}/docs/index.html")
        entries = driver.execute_script(
            "return Array.from(document.querySelectorAll('.litgrad-course-entry')).map(e => "
            "[e.textContent, Array.from(e.querySelectorAll('a')).map(a => a.getAttribute('href'))])")
        listed = [s.name for s in book if any(any(h.split('#')[0].endswith(f"chapters/{s.name}.html")
                                                  for h in e[1]) for e in entries)]
        check(f"the course page lists every chapter, in order, each linked ({len(book)})",
              listed == [s.name for s in book] and len(entries) == len(book), f"listed {listed}")
        console_and_hosts(driver, check, "the course page")
        desktop_screenshot(driver, shots, "index")
        for source in book:
            summaries.append(check_chapter_desktop(driver, check, base, source, book, shots))
            console_and_hosts(driver, check, source.name)
        driver.get(f"{base}/docs/claims.html")
        text = " ".join(driver.find_element(By.TAG_NAME, "article").text.replace("’", "'").split())
        unlisted = [c.name for s in book for c in s.claims if c.name not in text]
        check("the Claims page lists every claim of every chapter", not unlisted, f"missing: {unlisted[:3]}")
        console_and_hosts(driver, check, "the Claims page")
        desktop_screenshot(driver, shots, "claims")
        driver.get(f"{base}/docs/performance.html")
        console_and_hosts(driver, check, "the Performance page")
        desktop_screenshot(driver, shots, "performance")
    finally:
        driver.quit()

    phone = browser(*PHONE)
    try:
        for source in book:
            check_phone(phone, check, base, f"chapters/{source.name}.html", source.name, shots,
                        [reader.figure_id(source.name, f) for f, _ in source.figures])
        for page, label in [("docs/index.html", "the course page"), ("docs/claims.html", "the Claims page"),
                            ("docs/performance.html", "the Performance page")]:
            check_phone(phone, check, base, page, label, shots)
    finally:
        phone.quit()
        server.shutdown()

    for s in summaries:
        print(s)
    print(f"screenshots: {shots}" if shots else "screenshots: none (LITGRAD_SCREENSHOTS=1 takes them)")
    print(f"{sum(check.results)} passed, {len(check.results) - sum(check.results)} failed")
    sys.exit(0 if all(check.results) else 1)


if __name__ == "__main__":
    main()
