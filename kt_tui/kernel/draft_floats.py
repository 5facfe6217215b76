"""Values of a draft's float scalar arguments (kernel/draft.py): from what the index math says of them
(a resize's scale, a coordinate's origin or step, a scale truncated to an index), else made up apart
from the others and marked a guess."""

from __future__ import annotations

import re

from . import cuda_ast, extents
from .cuda_ast import text
from .draft_roles import unwrapped
from .draft_sizes import Sizing
from .draft_uses import ONE, POWERS, ROOTS
from .spec import Arg, Spec

# not 0 or 1, so a multiply or add by it changes the result; in (0, 1), as most made-up factors are meant (a
# scale, a rate, a weight, a probability, 1 - b): of the first drafts of held-out batches 3-21, 10 float
# scalars drafted above 1 (the 2nd to 5th made-up value) wanted at most 1, and none drafted below 1 but
# first wanted more than 1 except a divisor or a power's base (below) or a gain kernel/draft_relations.py sees
FLOAT_SCALAR = 0.75
FLOAT_SCALARS = (FLOAT_SCALAR, 0.625, 0.375, 0.875, 0.3125)  # one each, apart: a kernel that swaps two fails
# a float scalar that divides (`len / avg_len`, `x / penalty`) or is a power's base (`powf(base, e)`): above
# 1, so the quotient shrinks and the power falls off, as an average, a penalty or a base is meant; of the
# corpus truths' divisors and bases 9 of 10 allow a value in (1, 4) and 1 (a bias correction) wants at most 1
DIVISORS = (1.5, 2.5, 1.25, 3.5, 1.75)
MADE_UP = FLOAT_SCALARS + DIVISORS
_POWS = ("powf", "pow", "__powf", "exp2f", "__exp2f")
REGION = ((-2.0, 1.0), (-1.5, 1.5), (-1.0, 1.0))  # coordinates per axis: the escape-time set's region
ITERATED = (-0.8, 0.156)  # a constant added in each step (a Julia set's c): a set with structure
NEGATED = re.compile(r"^(?:neg|negative|minus)_|_(?:neg|negative)$", re.IGNORECASE)  # a scalar named as negated
NEGATED_VALUE = 0.75  # its magnitude: not 0 or 1, a power of it stays small
TRUNCATED_SCALE = 0.5  # a scale on a coordinate truncated to an index: two coordinates per index, none past it
GAUSSIAN_WEIGHTS = (0.01, 0.002, 0.005, 0.02)  # 1 / (2 sigma^2) of Gaussian weights: apart, each small
EXP_SCALE = 0.1  # a factor in an exponential's argument: exp(0.1 * x) finite for |x| up to 880
SHIFT = 2.0  # cells a coordinate moves per unit of a value read: standard normal data moves it a few cells
UNKNOWN_WHY = "a factor of unknown role"  # what a made-up value's guess says (kernel/draft_names.py reads it)
DIVIDES_WHY = "it divides, or is a power's base"


def float_value(
    name: str,
    an: extents.Analysis,
    sizing: Sizing,
    plain: int,
    power: bool = False,
    weight: int = -1,
    exp_scale: bool = False,
    divisor: bool = False,
) -> tuple[str | float, str]:
    """`plain`: how many float scalars before this one were given a made-up value; `power`: whether a
    power or an exponential takes it; `weight`: its number among the Gaussian weights (-1: none);
    `exp_scale`: whether it multiplies a term of what an exponential takes; `divisor`: whether it divides
    or is a power's base (`divisors`)."""
    role, axis = an.roles.get(name, ("", -1))
    fit, below = an.resized.get(name, (None, None))
    if fit is not None and below is not None and (fit.names() | below.names()) <= set(sizing.sizes):
        texts = [p.text() if len(p.terms) == 1 else f"({p.text()})" for p in (fit, below)]
        return (
            f"{texts[0]} / {texts[1]}",
            f"the scale from a coordinate below {below.text()} to an index clamped below {fit.text()} (a resize)",
        )
    if name in an.truncated:
        top = an.truncated[name].text()
        return TRUNCATED_SCALE, (
            f"{TRUNCATED_SCALE}: it scales a coordinate (up to {top}) that is then truncated to an index: below 1, so "
            "the index stays below the coordinate's range, and not so small that every coordinate gives index 0; "
            "set the scale you use"
        )
    if weight >= 0:
        value = GAUSSIAN_WEIGHTS[weight % len(GAUSSIAN_WEIGHTS)]
        return value, (
            f"{value}: it weights a square (a squared distance or difference) in an exponential, a Gaussian's "
            f"1 / (2 sigma^2): small, so the weights fall off over distances near {1 / value**0.5:.3g} and are "
            "neither all near 0 nor all near 1 (apart from the other weights); set the value you use"
        )
    if exp_scale:
        return EXP_SCALE, (
            f"{EXP_SCALE}: it multiplies what an exponential takes: below 1, so exp stays finite over data of "
            "the draft's size (float exp overflows past 88), not 0 or 1; set the value you use"
        )
    if role == "constant":  # added in each step of an iteration on a coordinate (a Julia set's c)
        value = ITERATED[axis % len(ITERATED)]
        return value, f"{value}: added in each step of a loop over a coordinate (keeps it bounded for a while)"
    if role and 0 <= axis < len(sizing.problem_size):
        lo, hi = REGION[axis]
        where = f"axis {extents.AXES[axis]} spans [{lo}, {hi}]"
        if role == "shift":
            return SHIFT, (
                f"{SHIFT}: it scales values read into a displacement of a thread's coordinate (`x - dt * v`): "
                "about a cell or more, so the displaced point leaves its cell (and some the grid), and well "
                "below the grid's side; set the value you use"
            )
        if role == "origin":
            return lo, f"{lo}: the start of a coordinate ({where})"
        if role == "end":
            return hi, f"{hi}: the end of a coordinate ({where})"
        size = sizing.problem_size[axis]
        wrapped = size if re.fullmatch(r"\w+", size) else f"({size})"
        if role == "zoom":
            return f"{wrapped} / {hi - lo}", f"pixels per unit: {where} over the problem size"
        return f"{hi - lo} / {wrapped}", f"a coordinate step: {where} over the problem size"
    if power and NEGATED.search(name):
        return -NEGATED_VALUE, (
            f"{-NEGATED_VALUE}: a power takes it and its name says it is negated (`negative_beta` for x^-beta), "
            "so below 0; set the value you use"
        )
    if divisor:
        value = DIVISORS[plain % len(DIVISORS)]
        return value, (
            f"{value}: {DIVIDES_WHY}: above 1 (an average, a penalty, a base), so a quotient "
            "shrinks and a power falls off; not 1, and apart from the others; set the value you use"
        )
    value = FLOAT_SCALARS[plain % len(FLOAT_SCALARS)]
    return (
        value,
        f"{value}: {UNKNOWN_WHY}, in (0, 1) as a scale, rate, weight or probability is (not 0 or 1, so "
        "the arithmetic is not trivial, and apart from the others); set the value you use",
    )


def divisors(fn: cuda_ast.Function, scalars: set[str]) -> set[str]:
    """Scalars among `scalars` that are a division's divisor alone (`x / s`, `x / (s)`) or the base of a
    power (`powf(s, e)`); one pass over the body, bounded by cuda_ast.walk's budget."""
    out: set[str] = set()
    if fn.body is None:
        return out
    for n in cuda_ast.walk(fn.body):
        if n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "/":
            taken = n.child_by_field_name("right")
        elif n.type == "call_expression" and text(n.child_by_field_name("function")) in _POWS:
            args = n.child_by_field_name("arguments")
            taken = args.named_children[0] if args is not None and args.named_children else None
        else:
            continue
        while taken is not None and taken.type == "parenthesized_expression" and taken.named_children:
            taken = taken.named_children[0]
        if taken is not None and taken.type == "identifier" and text(taken) in scalars:
            out.add(text(taken))
    return out


def one_less(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """A float scalar p given a made-up value of unknown role whose `1 - p` divides or reaches a root, a log
    or a power's base (`x / (1.0f - p)`, a dropout's scale; also through a local holding it): said as that.
    The made-up values of unknown role are in (0, 1), so 1 - p is above 0 as it must be."""
    made = {a.name: a for a in args if not a.is_array and a.type.startswith("float") and a.value in FLOAT_SCALARS}
    if fn.body is None or not made:
        return
    found: dict[str, tuple[str, str]] = {}  # scalar -> (how `1 - p` is used, its text)
    held: dict[str, tuple[str, str]] = {}  # a local given `1 - p` -> (p, its text)
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "-":
            continue
        name = unwrapped(n.child_by_field_name("right"))
        if not ONE.match(text(n.child_by_field_name("left"))) or name is None or text(name) not in made:
            continue
        said, up = " ".join(text(n).split()), n
        while up.parent is not None and up.parent.type in ("parenthesized_expression", "cast_expression"):
            up = up.parent
        p = up.parent
        call = p.parent if p is not None and p.type == "argument_list" else None
        given = [c for c in p.named_children if c.type != "comment"] if call is not None else []
        f = text(call.child_by_field_name("function")) if call is not None else ""
        if p is not None and p.type == "binary_expression" and text(p.child_by_field_name("operator")) == "/":
            if p.child_by_field_name("right") == up:
                found.setdefault(text(name), ("divisor", said))
        elif (f in ROOTS and len(given) == 1) or (f in POWERS and given[:1] == [up]):
            found.setdefault(text(name), ("root", said))
        elif p is not None and p.type == "init_declarator" and (d := p.child_by_field_name("declarator")) is not None:
            held[text(d)] = (text(name), said)
    for local in sorted(divisors(fn, set(held))):
        found.setdefault(held[local][0], ("divisor", f"{local} = {held[local][1]}"))
    for name, (how, said) in sorted(found.items()):
        value = made[name].value
        use = (
            f"`{said}` divides, so 1 - {name} must not be 0"
            if how == "divisor"
            else f"`{said}` reaches a square root, a log or a power's base, which a negative value makes NaN"
        )
        why = (
            f"{value}: {use}: {name} kept below 1, in (0, 1) as a rate or a probability is (not 0, and apart from "
            "the others); set the value you use"
        )
        plain = f"{value}: a factor of unknown role"
        guesses[:] = [(k, why if k == f"args.{name}" and w.startswith(plain) else w) for k, w in guesses]


def draft_note(spec: Spec) -> str:
    """What the user must look at in a draft: the float scalars given a made-up value."""
    made_up = [a for a in spec.args if not a.is_array and a.value in MADE_UP and a.type.startswith("float")]
    if not made_up:
        return ""
    if len(made_up) == 1:
        return (
            f" {made_up[0].name} = {made_up[0].value}: a value chosen so that the kernel's arithmetic is not trivial "
            "(not 0 or 1); set the value you use."
        )
    return (
        f" {', '.join(f'{a.name} = {a.value}' for a in made_up)}: values chosen so that the kernel's arithmetic "
        "is not trivial (not 0 or 1, and apart); set the values you use."
    )
