"""CUDA highlighting for Textual's TextArea: the tree-sitter-cuda grammar with the C, C++ and
CUDA highlight queries it inherits. Without those packages, editors show plain text."""

from __future__ import annotations

from importlib import resources

_cached: tuple | None = None


def cuda_language():
    """(Language, highlight query) or None."""
    global _cached
    if _cached is None:
        try:
            import tree_sitter_cuda
            from tree_sitter import Language, Query

            language = Language(tree_sitter_cuda.language())
            parts = []
            for pkg in ("tree_sitter_c", "tree_sitter_cpp", "tree_sitter_cuda"):
                try:
                    text = resources.files(pkg).joinpath("queries", "highlights.scm").read_text()
                    Query(language, text)  # a query the grammar rejects is left out
                    parts.append(text)
                except Exception:  # noqa: BLE001 - missing package or incompatible query
                    continue
            _cached = (language, "\n".join(parts))
        except Exception:  # noqa: BLE001 - no tree-sitter: plain text
            _cached = (None, "")
    return _cached if _cached[0] is not None else None


def use_cuda(area) -> bool:
    found = cuda_language()
    if not found:
        return False
    area.register_language("cuda", *found)
    area.language = "cuda"
    return True
