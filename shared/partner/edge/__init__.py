"""The HTTP edge: admission, the resolver and error mapping, request and response models, idempotency,
rate limits and multipart bodies. Imports the floors below (core, store, chain), never a feature."""
