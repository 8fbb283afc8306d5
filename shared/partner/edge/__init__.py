"""The HTTP edge: admission, resolver and error mapping, request/response models, idempotency, limits."""
