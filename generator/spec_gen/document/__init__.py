"""The document front end: load and bundle, positions and pointers, the 3.0 -> 3.1 upgrade,
repairs, read-only walks, regex patterns."""
