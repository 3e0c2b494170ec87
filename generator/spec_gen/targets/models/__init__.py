"""The models target: pydantic v2 models through datamodel-code-generator."""
