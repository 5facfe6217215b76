"""Results leave the tool: the best kernel, its spec, a kernel_tuner script, caches and a report.
Reads the store (and the engine's summary), never the UI."""

from .export import ExportError, export_session

__all__ = ["ExportError", "export_session"]
