"""Value ranges read off what an argument's name says (kernel/draft.py runs it last): a guess from the
name alone, as a reader guesses that `mass` is positive and `eps` is tiny, said with the word it rests on.

A name is split into words (snake_case, camelCase, digits); a leading pointer prefix (`d_`, `h_`, `dev`)
and trailing container words (`_in`, `Arr`, `_new`) are dropped, and the last word left is the head, the
noun the name is about (`particle_mass` is a mass, `mass_ratio` a ratio). Plurals are singular. The head's
category gives a range only where nothing is known of the value:

  positive   mass, density, radius, depth, viscosity, norm, distance,          float arrays over
             variance, sigma, std, a time, a price ...                          [0.5, 2)
  unit       probability, fraction, opacity, a uniform draw (`rand`) ...        [0, 1)
  tolerance  eps, tol ...                                                       a float scalar 1e-4
                                                                                (1e-8 a double)
  step       dt, timestep                                                       a float scalar 0.01
  count      count, length, size, degree, nnz, a histogram ...                  an int array from 0

A word anywhere in the name that makes the value signed or unbounded (`log`, `grad`, `delta`, `error`,
`offset`, an angle, `signed`) leaves the name unread (`log_mass`, `mass_grad`); one-letter words say
nothing (`m`, `p`, `u`). Only a float or int array still drawn over the generic range (init random, no
bounds, its sign never tested by the kernel) is narrowed, and only a float scalar whose value was made
up (kernel/draft_floats.py's unknown factor or divisor) and lies outside the name's range is replaced:
a range any pass derived from the code stands, no array becomes an index array, and sizes, launch and
int scalars are never touched."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import cuda_ast
from .bounds import Use, strip_parens
from .cuda_ast import Node, text
from .draft_floats import DIVIDES_WHY, FLOAT_SCALARS, UNKNOWN_WHY
from .spec import Arg, Spec

MAX_NAME = 128  # a longer identifier is no word a reader reads: nothing is guessed from it
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
# a tolerance: about a thousand of the type's roundings (its epsilon), so a test against it is decided by
# the values and not by rounding in the kernel's arithmetic, yet far below the data's scale
TOLERANCE = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-4, "float64": 1e-8}
TIME_STEP = 0.01  # an explicit step stays stable and accurate for dynamics of unit rates (and dt / dx^2 < 0.5)
POSITIVE_RANGE = (0.5, 2.0)  # around 1, as a standard normal draw's scale is, so 1/x and x*x stay tame
UNIT_RANGE = (0.0, 1.0)


@dataclass(frozen=True)
class Meaning:
    category: str  # positive unit tolerance count
    noun: str  # how the reason names it: "a mass"
    arrays: bool = True  # whether an array of that name means it (`alpha` does; `dt` of arrays is a gradient)
    scalars: bool = True


def _words(category: str, noun: str, *words: str, arrays: bool = True, scalars: bool = True) -> dict[str, Meaning]:
    return {w: Meaning(category, noun, arrays, scalars) for w in words}


VOCABULARY: dict[str, Meaning] = {
    **_words("positive", "a mass", "mass"),
    **_words("positive", "a density", "density"),
    **_words("positive", "a volume", "volume", arrays=False),  # an array named so is voxel data, of any sign
    **_words("positive", "an area", "area"),
    **_words("positive", "a radius", "radius", "radii", "diameter", "diam"),
    **_words("positive", "a depth", "depth", "thickness"),
    **_words("positive", "a temperature (in kelvin)", "temperature", "kelvin"),
    **_words("positive", "a viscosity", "viscosity", "visc"),
    **_words("positive", "a conductivity or diffusivity", "conductivity", "diffusivity", "permeability"),
    **_words("positive", "a stiffness", "stiffness"),
    **_words("positive", "a magnitude", "magnitude", "norm"),
    **_words("positive", "a length", "length", "wavelength", "bandwidth"),
    **_words("positive", "a distance", "distance", "dist"),
    **_words("positive", "a variance", "variance", "var"),
    **_words("positive", "a standard deviation", "sigma", "std", "stddev", "stdev", "rstd"),
    **_words("positive", "a time constant", "tau"),
    **_words("positive", "a time", "time", "lifetime", "maturity", "expiry", "tenor"),
    **_words("positive", "a volatility", "volatility"),
    **_words("positive", "a volume or a volatility", "vol", arrays=False),
    **_words("positive", "a price", "price", "strike"),
    **_words("positive", "a threshold", "threshold", "thresh"),
    **_words("positive", "a grid spacing", "spacing"),
    **_words("step", "a time step", "dt", "timestep", arrays=False),
    **_words("positive", "a grid step", "dx", "dy", "dz", arrays=False),
    **_words("unit", "a probability", "probability", "prob"),
    **_words("unit", "a fraction", "fraction", "frac"),
    **_words("unit", "an opacity", "opacity", "transparency", "transmittance", "coverage"),
    **_words("unit", "an alpha (blend) value", "alpha", scalars=False),
    **_words("unit", "a surface reflectance", "albedo", "reflectance", "roughness", "metallic"),
    **_words("unit", "a dropout rate", "dropout"),
    **_words("unit", "a confidence", "confidence"),
    **_words("unit", "a porosity", "porosity"),
    **_words("unit", "a uniform draw", "uniform", "rand", "rnd"),
    **_words("tolerance", "a tolerance", "eps", "epsilon", "tol", "tolerance", "atol", "rtol", arrays=False),
    **_words("count", "a count", "count", "cnt", "nnz", "population", "multiplicity", scalars=False),
    **_words("count", "a length", "len", scalars=False),
    **_words("count", "a size", "size", scalars=False),
    **_words("count", "a degree", "degree", "deg", scalars=False),
    **_words("count", "a histogram", "histogram", "hist", scalars=False),
}
# a word that makes the value signed or unbounded wherever it stands: the name says no range
SIGNED = {
    *("log", "logit", "logits", "ln", "lse", "exponent"),
    *("delta", "diff", "difference", "grad", "gradient", "deriv", "derivative", "change", "update", "step"),
    *("err", "error", "residual", "offset", "shift", "bias", "displacement", "disp"),
    *("flux", "velocity", "vel", "momentum", "force", "torque", "charge", "potential", "energy", "acceleration"),
    *("angle", "theta", "phi", "psi", "azimuth", "elevation", "heading", "yaw", "roll", "pitch", "phase", "lat"),
    *("lon", "latitude", "longitude", "signed", "sdf", "neg", "negative", "minus", "sign", "noise", "normal"),
    *("centered", "centred", "zscore", "standardized", "normalized", "whitened", "correlation", "corr", "cov"),
    *("covariance", "skew", "skewness", "slope", "curvature", "return", "returns", "pnl", "drift", "score"),
}
PREFIXES = {"d", "h", "g", "p", "s", "dev", "device", "host", "gpu", "cpu", "global", "shared", "const"}
CONTAINERS = {
    *("in", "out", "input", "output", "inp", "arr", "array", "buf", "buffer", "ptr", "data", "val", "vals"),
    *("value", "values", "list", "vec", "vector", "field", "map", "table", "tab", "old", "new", "prev", "next"),
    *("cur", "curr", "current", "tmp", "temp", "src", "dst", "dev", "host", "d", "h", "global", "local", "sq"),
    *("sqr", "squared", "init", "initial", "final", "device", "gpu", "cpu", "global", "a", "b", "per", "all"),
}
SINGULAR_ONLY = {"vars"}  # conserved variables (a fluid's), not variances
_PIECE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split(name: str) -> list[str]:
    """The lowercase words of an identifier (`d_particleMass2` -> d, particle, mass, 2); [] for one
    longer than MAX_NAME (no reader reads a word in it)."""
    if len(name) > MAX_NAME:
        return []
    return [w.lower() for part in name.split("_") for w in _PIECE.findall(part)]


def _singular(word: str) -> str:
    if word in SINGULAR_ONLY:
        return word
    for strip, add in (("ies", "y"), ("ses", "s"), ("es", ""), ("s", "")):
        if word.endswith(strip) and len(word) > len(strip) + 1 and (stem := word[: -len(strip)] + add) in VOCABULARY:
            return stem
    return word


def meaning(name: str, array: bool) -> tuple[str, Meaning] | None:
    """(the word, what it says) that the name of an array (`array`) or a scalar means, else None."""
    words = [_singular(w) for w in split(name) if not w.isdigit()]
    if any(w in SIGNED for w in words):
        return None
    while len(words) > 1 and words[0] in PREFIXES:
        words = words[1:]
    while len(words) > 1 and words[-1] in CONTAINERS:
        words = words[:-1]
    head = words[-1] if words else ""
    said = VOCABULARY.get(head) if len(head) > 1 else None
    if said is None or not (said.arrays if array else said.scalars):
        return None
    return head, said


def fit(spec: Spec, fn: cuda_ast.Function, uses: dict[str, Use], guesses: list[tuple[str, str]]) -> None:
    """Narrow each argument of `spec` whose range or value is still the generic one to what its name
    says, each said as a guess; `fn`: the kernel, `uses`: each array's uses (kernel/bounds.py),
    `guesses`: the draft's."""
    last = {key: what for key, what in guesses}  # the latest guess said of each argument
    signed = _signed(fn, {a.name for a in spec.args if a.is_array})
    taken: set[object] = {a.value for a in spec.args if not a.is_array}
    for arg in spec.args:
        found = meaning(arg.name, arg.is_array)
        if found is None:
            continue
        word, said = found
        why = f"from the name `{arg.name}` (the word `{word}`): {said.noun}"
        if arg.is_array:
            _array(arg, uses.get(arg.name), said, why, guesses, arg.name in signed)
        elif arg.type in FLOATS and _made_up(arg.value, last.get(f"args.{arg.name}", "")):
            _scalar(arg, said, why, taken, guesses)


def _array(arg: Arg, use: Use | None, said: Meaning, why: str, guesses: list[tuple[str, str]], signed: bool) -> None:
    if arg.init != "random" or arg.low is not None or arg.high is not None or signed or (use and use.sign):
        return  # a range some pass gave it, or a kernel that tests the sign: both signs are meant
    key, tail = f"args.{arg.name}", "; a guess from the name alone, set the range you use"
    if arg.type in FLOATS and said.category == "positive":
        arg.init, (arg.low, arg.high) = "positive", POSITIVE_RANGE
        guesses.append((key, f"values in [{arg.low}, {arg.high}): {why} is positive{tail}"))
    elif arg.type in FLOATS and said.category == "unit":
        arg.init, (arg.low, arg.high) = "uniform", UNIT_RANGE
        guesses.append((key, f"values in [0, 1): {why} lies in [0, 1]{tail}"))
    elif arg.type in INTS and (said.category == "count" or said.noun == "a length"):
        arg.low = 0
        guesses.append((key, f"values from 0: {why} is not negative{tail}"))


def _scalar(arg: Arg, said: Meaning, why: str, taken: set[object], guesses: list[tuple[str, str]]) -> None:
    value = arg.value
    if not isinstance(value, (int, float)):
        return
    if said.category == "tolerance" and not 0 < value <= TOLERANCE[arg.type]:
        arg.value = TOLERANCE[arg.type]
        why = f"{why} is tiny and positive, yet about a thousand roundings of {arg.type} so rounding does not decide"
    elif said.category == "step" and not 0 < value <= 10 * TIME_STEP:
        arg.value = TIME_STEP
        why = f"{why} is small: an explicit integrator is stable and accurate only for steps well below the dynamics' time scale"
    elif said.category == "unit" and not 0 <= value < 1:
        arg.value = next((v for v in FLOAT_SCALARS if v not in taken), FLOAT_SCALARS[0])
        why = f"{why} lies in [0, 1)"
    else:
        return
    taken.add(arg.value)
    guesses.append((f"args.{arg.name}", f"{arg.value}: {why}; a guess from the name alone, set the value you use"))


def _made_up(value: object, said: str) -> bool:
    """Whether a float scalar's `value` is the one kernel/draft_floats.py made up (what was last said of it)."""
    return (
        isinstance(value, (int, float))
        and said.startswith(f"{value}: ")
        and (UNKNOWN_WHY in said or DIVIDES_WHY in said)
    )


SIGN_CALLS = {"fabsf", "fabs", "abs", "labs", "llabs", "__habs", "signbit", "copysignf", "copysign", "sign"}


def _signed(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """The arrays of `arrays` whose loaded values (or a local holding one) the kernel orders against 0
    (`d[i] < 0.f`) or takes the magnitude or sign of (`fabsf(d[i])`): values of both signs are meant."""
    out: set[str] = set()
    if fn.body is None or not arrays:
        return out
    held: dict[str, str] = {}  # a local -> the array whose element it is declared as

    def loaded(n: Node | None) -> str | None:
        while (n := strip_parens(n)) is not None and n.type == "cast_expression":
            n = n.child_by_field_name("value")
        if n is not None and n.type == "subscript_expression":
            base = strip_parens(n.child_by_field_name("argument"))
            name = text(base) if base is not None and base.type == "identifier" else ""
            return name if name in arrays else None
        return held.get(text(n)) if n is not None and n.type == "identifier" else None

    for n in cuda_ast.walk(fn.body):
        if n.type == "init_declarator":
            d = n.child_by_field_name("declarator")
            if d is not None and d.type == "identifier" and (array := loaded(n.child_by_field_name("value"))):
                held[text(d)] = array
        elif n.type == "binary_expression" and text(n.child_by_field_name("operator")) in ("<", "<=", ">", ">="):
            sides = [n.child_by_field_name("left"), n.child_by_field_name("right")]
            for a, b in (sides, sides[::-1]):
                if _zero(b) and (array := loaded(a)):
                    out.add(array)
        elif n.type == "call_expression" and text(n.child_by_field_name("function")) in SIGN_CALLS:
            given = n.child_by_field_name("arguments")
            out.update(a for c in (given.named_children if given is not None else []) if (a := loaded(c)))
    return out


def _zero(n: Node | None) -> bool:
    n = strip_parens(n)
    return n is not None and n.type == "number_literal" and re.fullmatch(r"0*\.?0*[fF]?", text(n)) is not None
