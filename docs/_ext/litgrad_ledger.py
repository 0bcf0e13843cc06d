"""The mutation ledger on the book's pages (filled in with the ledger itself)."""


def page_header(env):
    return []


def chapter_lines(env, chapter):
    return []


def claim_lines(chapter, claim):
    return []
