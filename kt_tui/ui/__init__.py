"""The Textual app and its screens. It drives the engine through a Bridge and gets what it needs of
front/ as Services; only the UI thread touches widgets."""
