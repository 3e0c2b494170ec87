"""The build: the pipeline, its cache, the output tree, the models worker, the import probes
(verify), the result."""
