"""The Python client target: resources, auth per operation, wire encodings, bodies, names,
the models split for lazy loading, the optional pytest fixtures, README examples."""
