"""Commands the CLI runs that are not a pipeline of their own: `init`, `upgrade`, and the
one-line report of an internal error."""
