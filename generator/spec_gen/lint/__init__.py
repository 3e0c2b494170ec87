"""Lint: the document's structure and its schemas checked (validate), then the profile's
rules (rules_core, rules_schemas: the default profile; rules_house; profiles: extends and
severities); findings located at file:line:column. The rule ids are declared in
core/lint_rules.py (the front end's repairs emit them too)."""
