"""`python -m outreach_server.cli`: the `outreach-server` command."""

from . import main

main()
