"""Loops counted within one thread: a scalar that only bounds `for (k = START; k < s; ++k)`, START
free of the thread's and block's indices, is how many times each thread goes round (a Bloom filter's
hash count, a fixed-point iteration's steps). kernel/draft.py drafts it small: every thread pays each
trip at every size the check runs, so a count of 100 makes each of the check's runs, and each of its
wrong variants' runs, about 100 times as long as one trip (issue 35, batch 14). A counter that starts
at a thread's index or lane (`for (c = lane; c < nchan; c += 32)`) shares the count among threads;
a `while` or `do` loop's bound may be a limit never reached: those keep the drafter's larger count."""

from __future__ import annotations

import re
from typing import Any

from . import cuda_ast
from .cuda_ast import text

Node = Any
TRIPS = (5, 6, 7, 4, 8, 3)  # a thread's trip counts: one each, apart from the other scalars' values
THREAD = re.compile(r"\b(?:threadIdx|blockIdx|blockDim|gridDim|warpSize)\b|%laneid")
NAME = re.compile(r"[A-Za-z_]\w*")


def thread_trips(fn: cuda_ast.Function, scalars: set[str]) -> set[str]:
    """The scalars of `scalars` whose every loop is counted within a thread (by one, from a start that
    no thread index reaches, below or up to the scalar); none that bounds a `while` or `do` loop."""
    threaded = _thread_locals(fn.body)
    within: set[str] = set()
    shared: set[str] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type in ("while_statement", "do_statement"):
            shared |= _names(n.child_by_field_name("condition")) & scalars
        elif n.type == "for_statement":
            named = _names(n.child_by_field_name("condition")) & scalars
            (within if named and _counted(n, threaded) else shared).update(named)
    return within - shared


def trip_value(taken: set[Any]) -> int:
    """A small trip count apart from the values in `taken`."""
    return next((v for v in TRIPS if v not in taken), TRIPS[0])


def _names(n: Node | None) -> set[str]:
    return set(NAME.findall(text(n))) if n is not None else set()


def _thread_locals(body: Node) -> set[str]:
    """Locals given a value that reads a thread or block index (or another such local), in order."""
    out: set[str] = set()
    for n in cuda_ast.walk(body):
        if n.type == "init_declarator":
            target, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
        elif n.type == "assignment_expression":
            target, value = n.child_by_field_name("left"), n.child_by_field_name("right")
        else:
            continue
        if value is None or target is None:
            continue
        said = text(value)
        if THREAD.search(said) or _names(value) & out:
            out |= set(NAME.findall(text(target))[-1:])
    return out


def _counted(loop: Node, threaded: set[str]) -> bool:
    """`for (k = START; k < bound; ++k)` (or `<=`, `k++`, `k += 1`), START free of thread indices."""
    init, cond, step = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    if init is None or cond is None or step is None or cond.type != "binary_expression":
        return False
    counter = text(cond.child_by_field_name("left")).strip()
    if text(cond.child_by_field_name("operator")) not in ("<", "<=") or not NAME.fullmatch(counter):
        return False
    start = re.fullmatch(rf"(?:[\w\s]*\s)?{counter}\s*=\s*(.+?);?", text(init).strip(), re.DOTALL)
    if start is None or THREAD.search(start[1]) or set(NAME.findall(start[1])) & threaded:
        return False
    said = re.sub(r"\s+", "", text(step))
    return said in (f"++{counter}", f"{counter}++", f"{counter}+=1", f"{counter}={counter}+1")
