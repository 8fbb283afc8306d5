"""What the API does: one module (or package) per feature, on top of the edge, the chain and the store."""
