"""What a serving process shares: `Services` (stores, limiter, workers) and the request
context every handler receives (`RequestContext`, built by `Authenticator`).
"""
