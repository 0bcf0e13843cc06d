#!/usr/bin/python3
"""No page of the built book shows reST that was meant to be markup: text outside code that
holds a literal's double backquotes (````name````, which reST shows as they are when a literal
sits inside bold or emphasis), or a role left unread (``:math:`...```, ``:cpp:func:`...```, ``:doc:`...```).
Each finding names the page and quotes the text around it.

usage: /usr/bin/python3 tests/browser/check_markup.py HTML_DIR   (ctest runs it so)
"""
import glob
import html.parser
import os
import re
import sys

RAW = re.compile(r"``|:[a-z]+(?::[a-z]+)?:`")
SKIPPED = {"pre", "code", "script", "style", "kbd", "samp", "textarea"}


class Text(html.parser.HTMLParser):
    """The page's visible text outside code, in pieces."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside, self.pieces = [], []

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.inside.append(tag)

    def handle_endtag(self, tag):
        if self.inside and self.inside[-1] == tag:
            self.inside.pop()

    def handle_data(self, data):
        if not self.inside:
            self.pieces.append(data)


def problems(folder):
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.html"), recursive=True)):
        rel = os.path.relpath(path, folder)
        if rel.startswith(("_static", "_sources", "genindex", "search")):
            continue
        parser = Text()
        with open(path, encoding="utf-8") as f:
            parser.feed(f.read())
        text = " ".join(parser.pieces)
        for m in RAW.finditer(text):
            found.append(f"{rel}: reST shown as text: ...{text[max(0, m.start() - 40):m.end() + 40]!r}...")
    return found


def main():
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f"{len(found)} places where reST shows as text")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
