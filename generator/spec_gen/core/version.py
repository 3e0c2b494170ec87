"""The toolchain's own version (the distribution's metadata says the same)."""

__version__ = "0.1.0"
