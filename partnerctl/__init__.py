"""partnerctl: the operator CLI."""
