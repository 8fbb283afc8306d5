"""Data access: the only package that talks to DynamoDB."""
