"""spec-gen: a spec-first toolchain. OpenAPI 3.1 in; API layer, client and docs out."""

__version__ = "0.1.0"
