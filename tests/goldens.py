"""Golden keys and addresses of the unit tests of the on-chain interface (docs/onchain.md):
fixed pubkeys and the PDAs / ATAs they derive, as base58 strings."""

from solders.pubkey import Pubkey

A = Pubkey(bytes([1] * 32))
B = Pubkey(bytes([2] * 32))
C = Pubkey(bytes([3] * 32))
USER = A  # 4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi
MINT = B  # 8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR
FEE = C  # CktRuQ2mttgRGkXJtyksdKHjUdc2C4TgDzyB98oEzy8

GLOBAL = "AdgiwJYTCUnNrEKiLFZpZmzWaECUQ7vj6RWi4owGAxoF"
CURVE = "5QjguRTPiPmsWmPxWN92c7mfXzvye7K3tNugGRgoxdXV"
META = str(MINT)  # a coin's metadata is its Token-2022 mint (TokenMetadata extension)
GOVERNANCE = "3YkehQFPskMb5fQ54ma7Z4mZXpJWpPM3qBNxHg6LQjz9"
POOL = "4ikxspnMZhQbPuy6faEcdA2XxjK8JEEbeunmCDQDmGBK"
CURVE_VAULT = "A7uwtHhFLmds82foCeZKsWtcp76sGTZM4mXCJ92tZhbE"  # Token-2022 ATAs
POOL_VAULT = "2GuKrPmVFgZ6aagewArnyfbMMMVa7N4KZncstBC96eD4"
USER_ATA = "DyaUQ3JTcmWApDibKtBvxLBhUPjvA4KEM99t45qz3bfh"
PROP0 = "DYTDi1Vsh88HJsrXB1GGp6JLtzL4W5PDnqPADm2hwTrT"  # proposal 0 of MINT's governance
VAULT0 = "9jTCxnaFrW9xJbJPhhvy1XjH3grzkF8y8eeoxFWfZ9xh"  # its vault
VOTE0 = "DPaVFD96CseSzSxME6Q7xpMkrSbcqZazzBahMWGocKtV"  # USER's vote receipt on it
SYS = "11111111111111111111111111111111"
TOK = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"  # Token-2022
ATA = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
# the programs an instruction that creates token accounts names last: System, Token-2022, ATA
CPI_PROGRAMS = [(SYS, False, False), (TOK, False, False), (ATA, False, False)]
LAUNCHPAD = "JAt1NcDQrQs3NLNqLvq3EbBfxLDeBwkKMb3vM2Dw5Exk"
POOLPROG = "3rqyi8EBdPLANFc9MA5U6aPKHuZoKxmm4voFexqu1R7f"


def metas(ix):
    return [(str(m.pubkey), m.is_signer, m.is_writable) for m in ix.accounts]
