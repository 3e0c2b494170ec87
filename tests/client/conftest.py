"""Client tests: `outreach_client.testing`'s fixtures (the real server, run as a subprocess).

Imported rather than named in `pytest_plugins`: pytest only accepts that in the top-level
conftest.py, and these fixtures are for the client tests alone.
"""

from outreach_client.testing import (  # noqa: F401
    outreach_client,
    outreach_server,
    outreach_server_env,
)
