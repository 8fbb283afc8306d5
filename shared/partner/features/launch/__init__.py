"""POST /partner/v1/coins/create: launch a coin, optionally with the creator's first buy.

`execute` runs it (the order of the checks); `form` reads the request, `first_buy` plans the
creator's first buy, `limits` holds the cooldown and the identity allowance, `rules` the defaults."""
