"""The Partner API code layer: shared by every function through one Lambda layer."""
