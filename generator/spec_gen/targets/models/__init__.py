"""The models target: pydantic v2 models through datamodel-code-generator, in three jobs:
prepare (the models document the IR's schemas become; keywords: per-keyword rewrites), run
(datamodel-code-generator itself, its warm-up, its warnings; refused: its refusal of a
schema) and fix (its module fixed through the syntax tree); depth: the longest chain of
classes pydantic builds inline. Its cache is the build's (build/cache.py)."""
