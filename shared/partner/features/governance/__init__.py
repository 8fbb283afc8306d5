"""Metadata governance: the write endpoints (`partner.features.governance.writes`)."""
