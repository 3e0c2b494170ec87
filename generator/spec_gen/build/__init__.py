"""The build: the pipeline, every cache (cache), the ruff formatter (formatter), what the
targets take from the settings (target_settings), the output tree, the models worker, the
import probes (verify), the result."""
