"""The foundation every layer builds on: settings, storage (engine, Reader, the core tables),
errors in the API's format, the filter language, pagination, the DNS resolver, the rate
limiter, logging and the server key. No web framework, no domain: imports nothing above it.
"""
