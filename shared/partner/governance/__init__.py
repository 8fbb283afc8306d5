"""Metadata governance: the write endpoints (`partner.governance.writes`)."""
