"""The document front end: read each file (read), bundle them (load), positions and pointers,
the 3.0 -> 3.1 upgrade (upgrade) and the 3.1 repairs (repair: the document-level ones;
schema_repair, values, parameter_repair), the walk over every schema both share
(schema_walk), read-only walks (walk), `$ref`s (refs), regex patterns."""
