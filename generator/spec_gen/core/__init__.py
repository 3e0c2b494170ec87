"""Layer 0 of the generator: what knows no OpenAPI (Python names, the node being worked on, the
project's settings, stage timings, the garbage-collector pause), and the lint rule ids
(lint_rules) every layer above emits."""
