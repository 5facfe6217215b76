"""CUDA colours for Textual's TextArea from kernel/syntax.py, the lexer the kernel finder, the review
and the parameter fixer read code with: what shows as a comment or a string is what they skip."""

from __future__ import annotations

from textual.widgets import TextArea

from ..kernel.syntax import highlights


class CudaArea(TextArea):
    """A TextArea that colours CUDA source; any text, however broken, still gets its colours."""

    def _build_highlight_map(self) -> None:
        # TextArea's hook for tree-sitter captures (textual is pinned in pyproject.toml)
        self._line_cache.clear()
        self._highlights.clear()
        for row, start, end, name in highlights("\n".join(self.document.lines)):
            self._highlights[row].append((start, end, name))
