"""The OAuth 2.0 authorization server (authorization code + PKCE, refresh rotation, RFC 7009)."""
