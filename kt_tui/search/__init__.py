"""Searching a kernel's tuning space.

space     the space of a Spec as data: enumeration with restrictions, text for prompts, checks for
          proposed configurations, edits (no numpy / kernel_tuner imports: cheap to import)
seeds     heuristic seed configurations from rule files (built in: rules/*.toml; user rules from a folder)
strategy  our search as a kernel_tuner strategy (`tune`), and `budgeted_brute_force`
model     the surrogate models the strategy uses
"""
