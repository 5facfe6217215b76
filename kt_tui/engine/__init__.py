"""The session engine and its strategies. Imports no Textual: it runs headless as well."""
