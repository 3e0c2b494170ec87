"""datamodel-code-generator's refusal of a schema, as a type of its own: small, so the
build pipeline checks for it without importing the models target."""

from __future__ import annotations


class ModelsRefused(Exception):
    """datamodel-code-generator refused a schema (its SchemaParseError): where, in the models
    document (`/components/schemas/<Class>/...`), and why. Its arguments are its fields, so
    it crosses the models worker's pipe as it is."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path, self.reason = path, reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"
