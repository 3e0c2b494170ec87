"""Lint: the document's structure and its schemas checked, then the profile's rules; findings
located at file:line:column."""
