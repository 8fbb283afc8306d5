// The ecosystem's own Solana clients against the devstack chain, as a partner's app would use it:
// web3.js's sendAndConfirmTransaction (which waits on the PubSub websocket) of a buy built from
// idl/launchpad.json with Anchor's program.methods, @solana/kit's send-and-confirm over
// rpcSubscriptions, @solana/spl-token reading a launched coin's Token-2022 metadata, and
// logsSubscribe / accountSubscribe notified of a trade.
//
// Run by tests/e2e/test_node_clients.py, which starts the stack and sets:
//   RPC_URL, WS_URL, PAYER_SECRET (JSON array of the 64-byte secret key), MINT (a seeded coin),
//   COIN_NAME, COIN_SYMBOL, IDL_PATH.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import anchor from "@coral-xyz/anchor";
import * as kit from "@solana/kit";
import { getMint, getTokenMetadata, TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, sendAndConfirmTransaction } from "@solana/web3.js";

const env = (name) => {
  const value = process.env[name];
  assert.ok(value, `${name} is not set (run through tests/e2e/test_node_clients.py)`);
  return value;
};
const secret = Uint8Array.from(JSON.parse(env("PAYER_SECRET")));
const payer = Keypair.fromSecretKey(secret);
const mint = new PublicKey(env("MINT"));
const idl = JSON.parse(readFileSync(env("IDL_PATH"), "utf8"));
const connection = new Connection(env("RPC_URL"), { commitment: "confirmed", wsEndpoint: env("WS_URL") });
const provider = new anchor.AnchorProvider(connection, new anchor.Wallet(payer), { commitment: "confirmed" });
const program = new anchor.Program(idl, provider);
const [globalPda] = PublicKey.findProgramAddressSync([Buffer.from("global")], program.programId);
const [curvePda] = PublicKey.findProgramAddressSync([Buffer.from("bonding-curve"), mint.toBuffer()], program.programId);

async function buyTransaction(lamports) {
  const global = await program.account.global.fetch(globalPda);
  return program.methods
    .buy(new anchor.BN(lamports), new anchor.BN(1))
    .accountsPartial({ user: payer.publicKey, feeRecipient: global.feeRecipient, mint })
    .transaction();
}

async function tokenBalance() {
  const accounts = await connection.getTokenAccountsByOwner(payer.publicKey, { mint }, "confirmed");
  if (accounts.value.length === 0) return 0n;
  const balance = await connection.getTokenAccountBalance(accounts.value[0].pubkey, "confirmed");
  return BigInt(balance.value.amount);
}

test("web3.js sendAndConfirmTransaction confirms an Anchor-built buy over the websocket", async () => {
  const before = await tokenBalance();
  const tx = await buyTransaction(LAMPORTS_PER_SOL / 100);
  const signature = await sendAndConfirmTransaction(connection, tx, [payer], { commitment: "confirmed" });
  const status = (await connection.getSignatureStatuses([signature])).value[0];
  assert.equal(status.err, null);
  assert.ok(["confirmed", "finalized"].includes(status.confirmationStatus), status.confirmationStatus);
  assert.ok((await tokenBalance()) > before, "the buy delivered tokens");
  // Anchor decodes the curve it traded against
  const curve = await program.account.bondingCurve.fetch(curvePda);
  assert.ok(BigInt(curve.realSolReserves.toString()) > 0n);
});

test("@solana/kit sendAndConfirmTransactionFactory confirms over rpcSubscriptions", async () => {
  const rpc = kit.createSolanaRpc(env("RPC_URL"));
  const rpcSubscriptions = kit.createSolanaRpcSubscriptions(env("WS_URL"));
  const signer = await kit.createKeyPairSignerFromBytes(secret);
  const recipient = Keypair.generate().publicKey.toBase58();
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true); // System program Transfer
  view.setBigUint64(4, 5_000_000n, true);
  const transfer = {
    programAddress: kit.address("11111111111111111111111111111111"),
    accounts: [
      { address: signer.address, role: kit.AccountRole.WRITABLE_SIGNER, signer },
      { address: kit.address(recipient), role: kit.AccountRole.WRITABLE },
    ],
    data,
  };
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
  const message = kit.pipe(
    kit.createTransactionMessage({ version: 0 }),
    (m) => kit.setTransactionMessageFeePayerSigner(signer, m),
    (m) => kit.setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => kit.appendTransactionMessageInstruction(transfer, m),
  );
  const signed = await kit.signTransactionMessageWithSigners(message);
  const sendAndConfirm = kit.sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions });
  await sendAndConfirm(signed, { commitment: "confirmed" });
  const { value: lamports } = await rpc.getBalance(kit.address(recipient), { commitment: "confirmed" }).send();
  assert.equal(lamports, 5_000_000n);
});

test("@solana/spl-token reads the launched coin's Token-2022 mint and metadata", async () => {
  const info = await getMint(connection, mint, "confirmed", TOKEN_2022_PROGRAM_ID);
  assert.equal(info.decimals, 6);
  assert.equal(info.mintAuthority, null);
  const metadata = await getTokenMetadata(connection, mint, "confirmed");
  assert.equal(metadata.name, env("COIN_NAME"));
  assert.equal(metadata.symbol, env("COIN_SYMBOL"));
  assert.ok(metadata.mint.equals(mint));
});

test("logsSubscribe and accountSubscribe are notified of a trade", async () => {
  const logs = new Promise((resolve) => {
    const id = connection.onLogs(
      curvePda,
      (entry) => {
        connection.removeOnLogsListener(id);
        resolve(entry);
      },
      "confirmed",
    );
  });
  const account = new Promise((resolve) => {
    const id = connection.onAccountChange(
      curvePda,
      (info, context) => {
        connection.removeAccountChangeListener(id);
        resolve({ info, context });
      },
      { commitment: "confirmed" },
    );
  });
  await new Promise((resolve) => setTimeout(resolve, 300)); // the subscriptions are answered
  const signature = await sendAndConfirmTransaction(connection, await buyTransaction(LAMPORTS_PER_SOL / 200), [payer], {
    commitment: "confirmed",
  });
  const timeout = (what) => new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what}`)), 15_000));
  const entry = await Promise.race([logs, timeout("logs notification")]);
  assert.equal(entry.signature, signature);
  assert.equal(entry.err, null);
  assert.ok(entry.logs.some((line) => line.includes(program.programId.toBase58())));
  const { info, context } = await Promise.race([account, timeout("account notification")]);
  assert.ok(info.owner.equals(program.programId));
  const decoded = program.coder.accounts.decode("bondingCurve", info.data);
  assert.ok(decoded.mint.equals(mint));
  assert.ok(context.slot > 0);
});
