"""Implementations of the generated interfaces, one module per tag."""
