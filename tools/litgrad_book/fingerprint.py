"""What a C++ file's code is, without its prose: the fingerprint a mutation's result depends on.

A mutation's verdict (which claims it turned red) can change only when code changes: the
comments around it, a chapter's ``// %%`` prose, the layout of its lines and the wording of a
claim's name cannot change what any test computes or whether it passes. So the ledger keeps,
for each file a result depends on, a hash of the file's *tokens*, read as the compiler reads
them, with

* comments dropped (``//`` to the end of the line, ``/* ... */``), so prose and ``// %%``
  markers count for nothing;
* whitespace dropped except where it separates two tokens that would otherwise run together
  (two names or numbers, or two punctuation characters that would read as one: ``a - -b`` is
  not ``a--b``), and except the end of a preprocessor line, which ends the directive;
* the string literals that name a claim, ``TEST_CASE("...")``, replaced by a placeholder, so
  that rewording a claim stales nothing (the ledger maps a claim's verdicts by its place among
  the chapter's claims, which the placeholder keeps).

Every other string and character literal is kept byte for byte (a message or a key is code),
adjacent plain literals joined as the compiler joins them, so that a message broken across
lines is the same message. The rule errs one way only: an edit that changes a token always
changes the fingerprint, and a few edits that change none can still change it (``x = - y``
written ``x = -y``), which costs a rerun, never a wrong verdict.
"""
import hashlib
import re

CPP = (".cpp", ".hpp", ".h", ".cc", ".hpp.in")  # the files read as C++
IDENT = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
PLACEHOLDER = '"<claim>"'
# Two punctuation characters that written together read as another token (or a comment).
JOINS = {"++", "--", "<<", ">>", "&&", "||", "==", "!=", "<=", ">=", "->", "::", "+=", "-=", "*=", "/=",
         "%=", "&=", "|=", "^=", "##", ".*", "..", "//", "/*", "<:", ":>", "<%", "%>", "%:"}
# The end of a literal after which a joined literal's first character would extend an escape.
OPEN_ESCAPE = re.compile(r'\\(?:x[0-9a-fA-F]*|[0-7]{1,2})"$')
PREFIXES = ("R", "L", "u", "U", "u8", "LR", "uR", "UR", "u8R")


def tokens(text):
    """The file's tokens in order: names and numbers, literals (whole, with their prefix), one
    punctuation character each, and "\\n" at the end of each preprocessor line. A token that
    follows whitespace is marked by a leading "\\0" (used only to decide where a space must
    stay)."""
    text = text.replace("\\\r\n", "").replace("\\\n", "")  # line splices, as the compiler's phase 2
    out, i, n = [], 0, len(text)
    spaced, directive, line_start = False, False, True

    def emit(token):
        nonlocal spaced, line_start
        out.append(("\0" if spaced else "") + token)
        spaced, line_start = False, False

    while i < n:
        c = text[i]
        if c == "\n":
            if directive:
                out.append("\n")
                directive = False
            spaced, line_start = True, True
            i += 1
        elif c in " \t\r\f\v":
            spaced = True
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            spaced = True
        elif c == "#" and line_start:
            directive = True
            emit("#")
            i += 1
        elif c in "\"'":
            j = literal_end(text, i)
            emit(text[i:j])
            i = j
        elif c in IDENT or c == "." and i + 1 < n and text[i + 1].isdigit():
            j = i + 1
            number = c.isdigit() or c == "."
            while j < n and (text[j] in IDENT or number and (text[j] in ".'" or text[j] in "+-"
                                                               and text[j - 1] in "eEpP")):
                j += 1
            if text[i:j] in PREFIXES and j < n and text[j] in "\"'":
                j = literal_end(text, j)  # the prefix belongs to its literal: u8"...", R"(...)"
            emit(text[i:j])
            i = j
        else:
            emit(c)
            i += 1
    return out


def literal_end(text, i):
    """The index just after the string or character literal that opens at ``text[i]`` (a raw
    string ``R"delim( ... )delim"`` when the prefix before it ends in R)."""
    quote = text[i]
    if quote == '"' and i > 0 and text[i - 1] == "R":
        open_paren = text.find("(", i)
        delim = text[i + 1:open_paren]
        end = text.find(")" + delim + '"', open_paren)
        return len(text) if end < 0 else end + len(delim) + 2
    j = i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, len(text))


def code_of(text):
    """The file's code as one string: its tokens, with a space kept only where the tokens on
    either side would otherwise join, and the names of claims replaced by a placeholder."""
    return code_of_tokens(tokens(text))


def code_of_tokens(toks):
    """``code_of`` for tokens already read (``tokens``), such as a stretch of a file's."""
    toks = list(toks)
    parts, previous = [], ""
    k = 0
    while k < len(toks):
        raw = toks[k]
        tok = raw.lstrip("\0")
        if tok == "TEST_CASE" and k + 1 < len(toks) and toks[k + 1].lstrip("\0") == "(":
            j = k + 2
            while j < len(toks) and toks[j].lstrip("\0")[:1] == '"':
                j += 1
            if j > k + 2 and j < len(toks) and toks[j].lstrip("\0") == ")":
                toks[k + 2:j] = [PLACEHOLDER]
        if raw.startswith("\0") and previous:
            a, b = previous[-1], tok[0]
            if a in IDENT and b in IDENT or a + b in JOINS:
                parts.append(" ")
        if tok[:1] == '"' and previous[:1] == '"' and previous[-1:] == '"' and not OPEN_ESCAPE.search(previous):
            # adjacent literals are one literal (the compiler joins them): a message broken
            # across lines is the same message
            parts[-1] = previous = previous[:-1] + tok[1:]
            k += 1
            continue
        parts.append(tok)
        previous = tok
        k += 1
    return "".join(parts)


def of_text(text):
    return hashlib.sha256(code_of(text).encode()).hexdigest()


def of_file(path):
    """The fingerprint of the file at ``path``: of its code for C++ sources and headers, of
    its bytes for any other file (a TOML catalogue, a CMake list), where every byte counts."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(CPP):
        return of_text(data.decode("utf-8"))
    return hashlib.sha256(data).hexdigest()
