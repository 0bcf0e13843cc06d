"""A chapter's exercises on its page (filled in with the exercises themselves)."""


def chapter_section(env, chapter):
    return []


def count(env, chapter):
    return 0
