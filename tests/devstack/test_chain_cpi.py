"""Devstack chain: the program registry, CPI and PDA signing, and the plugin hook."""

from __future__ import annotations

import sys
import types

import pytest
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from spl.token import instructions as T
from spl.token.constants import TOKEN_PROGRAM_ID

from devstack.chain import constants as C
from devstack.chain.runtime import InvokeContext, ProgramError, register_program
from devstack.chain.server import start_chain
from devstack.chain.testing import airdrop, balance, build_tx, latest_blockhash, result, send

SOL = 1_000_000_000
VAULT_PROGRAM = Pubkey.from_string("Vau1t11111111111111111111111111111111111111")


def vault_pda(user: Pubkey) -> tuple[Pubkey, int]:
    return Pubkey.find_program_address([b"vault", bytes(user)], VAULT_PROGRAM)


def _sys_transfer(frm: Pubkey, to: Pubkey, lamports: int) -> Instruction:
    return Instruction(C.SYSTEM_PROGRAM_ID, (2).to_bytes(4, "little") + lamports.to_bytes(8, "little"),
                       [AccountMeta(frm, True, True), AccountMeta(to, False, True)])


def vault_program(ctx: InvokeContext) -> None:
    """0: withdraw from the user's system-owned PDA vault (PDA signs via seeds);
    1: same with wrong seeds; 2: try to make the user sign for someone else (escalation);
    3: mint tokens with the PDA as mint authority; 4: a CPI fails but the program swallows it."""
    op = ctx.data[0]
    user, vault = ctx.accounts[0], ctx.accounts[1]
    pda, bump = vault_pda(user.pubkey)
    if vault.pubkey != pda:
        raise ProgramError(1, "wrong vault")
    amount = int.from_bytes(ctx.data[1:9], "little")
    if op == 0:
        ctx.log(f"withdraw {amount}")
        ctx.invoke(_sys_transfer(vault.pubkey, user.pubkey, amount), [[b"vault", bytes(user.pubkey), bytes([bump])]])
    elif op == 1:
        _, other_bump = Pubkey.find_program_address([b"vault", bytes(32)], VAULT_PROGRAM)
        ctx.invoke(_sys_transfer(vault.pubkey, user.pubkey, amount), [[b"vault", bytes(32), bytes([other_bump])]])
    elif op == 2:
        victim = ctx.accounts[3]
        ctx.invoke(_sys_transfer(victim.pubkey, user.pubkey, amount))
    elif op == 3:
        mint, dest = ctx.accounts[3], ctx.accounts[4]
        ix = T.mint_to(T.models.MintToParams(program_id=TOKEN_PROGRAM_ID, mint=mint.pubkey, dest=dest.pubkey,
                                             mint_authority=vault.pubkey, amount=amount))
        ctx.invoke(ix, [[b"vault", bytes(user.pubkey), bytes([bump])]])
    elif op == 4:
        try:
            ctx.invoke(_sys_transfer(vault.pubkey, user.pubkey, 10**18), [[b"vault", bytes(user.pubkey),
                                                                           bytes([bump])]])
        except Exception:
            pass


@pytest.fixture
def chain():
    h = start_chain(port=0, plugins=False, engine="python")  # registers a Python test program
    register_program(h.bank, VAULT_PROGRAM, vault_program)
    yield h
    h.stop()


def call(chain, user: Keypair, op: int, amount: int, extra: list[AccountMeta] = ()):
    vault, _ = vault_pda(user.pubkey())
    ix = Instruction(VAULT_PROGRAM, bytes([op]) + amount.to_bytes(8, "little"),
                     [AccountMeta(user.pubkey(), True, True), AccountMeta(vault, False, True),
                      AccountMeta(C.SYSTEM_PROGRAM_ID, False, False), *extra])
    return send(chain.url, build_tx([ix], user, [], latest_blockhash(chain.url)))


def test_registered_program_has_executable_account(chain):
    info = result(chain.url, "getAccountInfo", [str(VAULT_PROGRAM), {"encoding": "base64"}])["value"]
    assert info["executable"] is True


def test_pda_signs_through_cpi(chain):
    user = Keypair()
    airdrop(chain.url, user.pubkey(), 2 * SOL)
    vault, _ = vault_pda(user.pubkey())
    airdrop(chain.url, vault, SOL)
    resp = call(chain, user, 0, SOL // 4)
    assert "result" in resp, resp
    assert balance(chain.url, vault) == SOL - SOL // 4
    assert balance(chain.url, user.pubkey()) == 2 * SOL + SOL // 4 - 5000
    tx = result(chain.url, "getTransaction", [resp["result"], {"commitment": "confirmed"}])
    logs = tx["meta"]["logMessages"]
    assert logs[0] == f"Program {VAULT_PROGRAM} invoke [1]"
    assert "Program 11111111111111111111111111111111 invoke [2]" in logs
    assert f"Program log: withdraw {SOL // 4}" in logs
    assert logs[-1] == f"Program {VAULT_PROGRAM} success"
    inner = tx["meta"]["innerInstructions"]
    assert inner[0]["index"] == 0 and inner[0]["instructions"][0]["stackHeight"] == 2


def test_wrong_seeds_and_privilege_escalation(chain):
    user, victim = Keypair(), Keypair()
    airdrop(chain.url, user.pubkey(), 2 * SOL)
    airdrop(chain.url, victim.pubkey(), 2 * SOL)
    vault, _ = vault_pda(user.pubkey())
    airdrop(chain.url, vault, SOL)
    err = call(chain, user, 1, 1000)["error"]["data"]
    assert err["err"] == {"InstructionError": [0, "PrivilegeEscalation"]}
    assert f"{vault}'s signer privilege escalated" in err["logs"]
    err = call(chain, user, 2, 1000, [AccountMeta(victim.pubkey(), False, True)])["error"]["data"]
    assert err["err"] == {"InstructionError": [0, "PrivilegeEscalation"]}
    # a failed CPI fails the transaction even if the caller swallows the exception
    err = call(chain, user, 4, 0)["error"]["data"]
    assert err["err"] == {"InstructionError": [0, {"Custom": 1}]}
    assert balance(chain.url, victim.pubkey()) == 2 * SOL
    assert balance(chain.url, vault) == SOL


def test_pda_as_mint_authority(chain):
    user = Keypair()
    airdrop(chain.url, user.pubkey(), 5 * SOL)
    vault, _ = vault_pda(user.pubkey())
    mint = Keypair()
    from solders.system_program import CreateAccountParams, create_account

    ixs = [
        create_account(CreateAccountParams(from_pubkey=user.pubkey(), to_pubkey=mint.pubkey(), lamports=1461600,
                                           space=82, owner=TOKEN_PROGRAM_ID)),
        T.initialize_mint(T.models.InitializeMintParams(decimals=0, program_id=TOKEN_PROGRAM_ID, mint=mint.pubkey(),
                                                        mint_authority=vault)),
        T.create_associated_token_account(user.pubkey(), user.pubkey(), mint.pubkey()),
    ]
    assert "result" in send(chain.url, build_tx(ixs, user, [mint], latest_blockhash(chain.url)))
    ata = T.get_associated_token_address(user.pubkey(), mint.pubkey())
    resp = call(chain, user, 3, 42, [AccountMeta(mint.pubkey(), False, True), AccountMeta(ata, False, True),
                                     AccountMeta(TOKEN_PROGRAM_ID, False, False)])
    assert "result" in resp, resp
    assert result(chain.url, "getTokenAccountBalance", [str(ata)])["value"]["amount"] == "42"


def test_plugin_hook_installs_programs(monkeypatch):
    called = {}
    mod = types.ModuleType("devstack.chain.programs")

    def install(bank):
        called["bank"] = bank
        register_program(bank, VAULT_PROGRAM, vault_program)
        bank.set_account(Pubkey.from_string("Geness1s11111111111111111111111111111111111"), 5 * SOL, b"\x07" * 10,
                         VAULT_PROGRAM)

    mod.install = install
    monkeypatch.setitem(sys.modules, "devstack.chain.programs", mod)
    h = start_chain(port=0, engine="python")  # the python engine calls devstack.chain.programs.install
    try:
        assert called["bank"] is h.bank
        info = result(h.url, "getAccountInfo", ["Geness1s11111111111111111111111111111111111", {"encoding": "base64"}])
        assert info["value"]["owner"] == str(VAULT_PROGRAM) and info["value"]["lamports"] == 5 * SOL
    finally:
        h.stop()
