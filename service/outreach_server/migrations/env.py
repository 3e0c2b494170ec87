"""Alembic environment: runs on the connection handed over by outreach_server.migrate."""

from alembic import context

from outreach_server.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations with `outreach-server migrate`")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
