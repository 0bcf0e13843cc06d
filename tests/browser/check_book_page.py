#!/usr/bin/python3
"""Opens the built book's chapter page in headless Chromium (Debian's chromium and
chromium-driver, driven by python3-selenium) and checks what a reader would see.

usage: check_book_page.py HTML_DIR CHAPTER_SOURCE SCREENSHOT_DIR

Serves HTML_DIR on 127.0.0.1 and opens chapters/<chapter>.html. Checks: the four section
headings are there; every figure loaded (natural width above zero); the math was rendered by
MathJax with no error; every TEST_CASE of the chapter source shows a verdict that it held;
the browser console has no errors; and the page asked no host other than 127.0.0.1. Saves a
full-page screenshot at desktop width and one at phone width into SCREENSHOT_DIR.
Prints one line per check and "N passed, M failed" last; exits non-zero if any check failed.
"""
import functools
import http.server
import json
import os
import re
import sys
import tempfile
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

SECTIONS = ["1 · Three lines, no training", "2 · A task that needs attention", "3 · The same thing, packaged",
            "4 · Attention does not know what order anything is in"]


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
                 "--disable-dev-shm-usage", f"--window-size={width},{height}",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='litgrad-chromium-')}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for_mathjax(driver, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        done = driver.execute_script(
            "return window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0 && "
            "MathJax.Hub.queue.running === 0 && document.querySelectorAll('.MathJax_Processing').length === 0")
        if done:
            return True
        time.sleep(0.2)
    return False


def main():
    html_dir, chapter_source, shots = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(shots, exist_ok=True)
    chapter = os.path.basename(chapter_source)[:-4]
    with open(chapter_source, encoding="utf-8") as f:
        test_cases = len(re.findall(r'TEST_CASE\("', f.read()))
    server = serve(html_dir)
    url = f"http://127.0.0.1:{server.server_address[1]}/chapters/{chapter}.html"
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'ok    ' if ok else 'FAILED'} {name}" + (f": {detail}" if detail else ""))

    driver = browser(1280, 900)
    try:
        driver.get(url)
        mathjax_done = wait_for_mathjax(driver)
        headings = [h.text.strip().rstrip("¶").strip() for h in driver.find_elements(By.CSS_SELECTOR, "h2")]
        missing = [s for s in SECTIONS if s not in headings]
        check("all four section headings are there", not missing, f"missing {missing}" if missing else "")

        images = driver.execute_script(
            "return Array.from(document.querySelectorAll('article img')).map(i => [i.src, i.complete, i.naturalWidth])")
        broken = [src for src, complete, width in images if not complete or width == 0]
        check(f"every figure loaded ({len(images)} images)", len(images) >= 8 and not broken, f"broken: {broken}" if broken else "")

        rendered = driver.execute_script("return document.querySelectorAll('.MathJax_CHTML, .mjx-chtml').length")
        errors = driver.execute_script("return document.querySelectorAll('.MathJax_Error, .mjx-merror').length")
        raw = driver.execute_script(
            r"return Array.from(document.querySelectorAll('span.math')).filter(s => /\\\(|\\\[/.test(s.textContent) && !s.querySelector('.MathJax_CHTML, .mjx-chtml')).length")
        check(f"the math rendered ({rendered} formulas)", mathjax_done and rendered > 10 and errors == 0 and raw == 0,
              f"done={mathjax_done} errors={errors} unrendered={raw}")

        verdicts = driver.execute_script(
            "return Array.from(document.querySelectorAll('.litgrad-claim')).map(e => e.textContent)")
        held = [v for v in verdicts if "✓ held" in v and "test" in v]
        check(f"every claim shows its verdict ({len(held)} of {test_cases} test cases)",
              test_cases > 0 and len(held) == test_cases == len(verdicts))

        console = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        check("the console has no errors", not console, json.dumps(console)[:500] if console else "")

        hosts = set()
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                request_url = message["params"]["request"]["url"]
                if urllib.parse.urlparse(request_url).scheme in ("http", "https", "ws", "wss", "ftp"):
                    hosts.add(urllib.parse.urlparse(request_url).hostname)
        check("the page asked no host but 127.0.0.1", hosts == {"127.0.0.1"}, f"hosts: {sorted(hosts)}")

        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1280, height)
        time.sleep(0.5)
        driver.save_screenshot(os.path.join(shots, f"{chapter}.png"))
    finally:
        driver.quit()

    phone = browser(412, 915)  # a common phone's CSS width
    try:
        phone.get(url)
        wait_for_mathjax(phone)
        overflow = phone.execute_script(
            "return Array.from(document.querySelectorAll('article img')).filter(i => i.getBoundingClientRect().width > window.innerWidth).length")
        check("at phone width no figure is wider than the screen", overflow == 0, f"{overflow} too wide")
        height = phone.execute_script("return document.documentElement.scrollHeight")
        phone.set_window_size(412, min(height, 16000))
        time.sleep(0.5)
        phone.save_screenshot(os.path.join(shots, f"{chapter}-phone.png"))
    finally:
        phone.quit()
        server.shutdown()

    print(f"screenshots: {shots}")
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
