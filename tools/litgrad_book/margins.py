"""How far each measured number sits from the bound its claim holds it to, in the claim's own
units: a claim's margin.

A chapter holds a number to a bound with ``book::check`` (lib/litgrad/book/chapter.hpp), which
writes the bound into ``claims.json`` as text: ``≤ 1``, ``< 0.01``, ``> 4``, ``≥ 0``, ``= 0``,
``within 0.058 of 0.875``, ``between -4 and 4``. The margin is how many times over the number
clears its bound:

* ``≤ b``, ``< b`` with b > 0: b over the number (a rounding error of 0.1 of its bound: 10);
* ``≥ b``, ``> b`` with b > 0: the number over b (a lead of 234 standard errors against 4: 58.5);
* ``within t of c``: t over the number's distance from c;
* ``between lo and hi``: half the interval's width over the number's distance from its middle;

infinite where the number sits exactly on the bound's best value (an error of exactly 0).

A two-sided interval is an estimate's allowance for chance, and one draw near its middle says
nothing about how much the interval allows: where a claim measures the same number for several
seeds (``name (seed 1)``, ``name (seed 2)``, ...), the margin of each is the interval's
half-width over the root mean square of all the seeds' distances from its middle, the spread
the interval is there for (three draws at 0.2, -0.9 and 0.05 standard errors of a 4-SE interval
give a margin of 7.5 each, where one draw alone at 0.05 would give 80).
Equalities (``= v``), and bounds at 0 on one side (``≥ 0``, ``> 0``: a sign), have none: they
are the claim, not a threshold on it. A margin of more than ``LARGE`` says the claim checks
much less than its measurement could (a claim "below 1%" that measures 0.001%): the Claims
page lists those, unless the chapter gave the bound the reason so large a margin is the point
(``Bound::large_margin_because``, claims.json's ``large_margin_because``: a worst-case rounding
bound, a tail bound on a count), which the page shows apart, with the reason.
"""
import math
import re

LARGE = 50  # times the threshold: a claim this far inside its bound could say more

_ONE_SIDED = re.compile(r"^(≤|<|≥|>|=) (\S+)$")
_WITHIN = re.compile(r"^within (\S+) of (\S+)$")
_BETWEEN = re.compile(r"^between (\S+) and (\S+)$")


def parse(bound):
    """(relation, a, b) of a bound's text: ("≤", b, None), ("within", centre, tolerance),
    ("between", low, high). ValueError for a text none of book::check's bounds writes."""
    m = _ONE_SIDED.match(bound)
    if m:
        return m.group(1), float(m.group(2)), None
    m = _WITHIN.match(bound)
    if m:
        return "within", float(m.group(2)), float(m.group(1))
    m = _BETWEEN.match(bound)
    if m:
        return "between", float(m.group(1)), float(m.group(2))
    raise ValueError(f"not a bound book::check writes: {bound!r}")


def margin(value, bound):
    """How many times over ``value`` clears ``bound`` (the text), or None for an equality or a
    sign, which have no margin."""
    relation, a, b = parse(bound)
    if relation in ("≤", "<"):
        if a <= 0:
            return None
        return a / value if value > 0 else math.inf
    if relation in ("≥", ">"):
        return value / a if a > 0 else None
    two_sided = _distance(value, bound)
    if two_sided:
        off, half_width = two_sided
        return half_width / off if off > 0 else math.inf
    return None  # "=": the claim itself


_SEED = re.compile(r" \(seed \d+\)$")


def _distance(value, bound):
    """(distance from a two-sided bound's middle, its half-width), or None for a one-sided bound."""
    relation, a, b = parse(bound)
    if relation == "within":
        return abs(value - a), b
    if relation == "between":
        return abs(value - (a + b) / 2), (b - a) / 2
    return None


def of_claim(claim):
    """The margins of one claim's measured numbers (a claims.json entry), in their order: as
    ``margin``, except that the numbers of a two-sided bound measured for several seeds share the
    margin of their spread (above). None where a number has none."""
    measured = claim.get("measured", [])
    spread = {}  # (name without its seed, bound) -> distances from the interval's middle
    for m in measured:
        two_sided = _distance(m["value"], m["bound"]) if m.get("bound") else None
        if two_sided and _SEED.search(m["name"]):
            spread.setdefault((_SEED.sub("", m["name"]), m["bound"]), []).append(two_sided)
    found = []
    for m in measured:
        if not m.get("bound"):
            found.append(None)
            continue
        group = spread.get((_SEED.sub("", m["name"]), m["bound"]), [])
        if len(group) > 1:
            rms = math.sqrt(sum(d * d for d, _ in group) / len(group))
            found.append(group[0][1] / rms if rms > 0 else math.inf)
        else:
            found.append(margin(m["value"], m["bound"]))
    return found


def text(g):
    """A margin (``of_claim``'s) as the pages show it: "margin: 58× inside its bound", "margin:
    exactly at its bound's best value", or "" where there is none."""
    if g is None:
        return ""
    if math.isinf(g):
        return "margin: exactly at its bound's best value"
    return f"margin: {g:.3g}× inside its bound"


def large(claims, reasoned=False):
    """The measured numbers of ``claims`` (a chapter's claims.json, as read) whose margin is
    more than LARGE and whose bound gives no reason for it (with ``reasoned``, those whose bound
    does): (claim name, measured name, value, bound, margin, reason or None) each."""
    found = []
    for c in claims:
        for m, g in zip(c.get("measured", []), of_claim(c)):
            why = m.get("large_margin_because")
            if g is not None and g > LARGE and bool(why) == reasoned:
                found.append((c["name"], m["name"], m["value"], m["bound"], g, why))
    return found
