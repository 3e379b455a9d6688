// What the devnet refuses in staking and delegation, with java-tron's messages, and how it answers
// hostile input: an "Error" or a failed broadcast, never a 500, never a resource moved twice.
import { assert, assertEquals } from "../assert.ts";
import { createDevnet, type Devnet } from "../../rails/tron/devnet/mod.ts";
import { callJson, signTransactionJson } from "../../rails/tron/devnet/testing.ts";
import { addressFromPrivateKey, fromHex, privateKeyFromSeed } from "../../rails/tron/protocol/crypto.ts";
import { TRX_PRECISION } from "../../rails/tron/devnet/energy.ts";

type Json = Record<string, unknown>;
const ownerKey = privateKeyFromSeed("energy rules owner");
const owner = addressFromPrivateKey(ownerKey);
const receiver = addressFromPrivateKey(privateKeyFromSeed("energy rules receiver"));
const stranger = addressFromPrivateKey(privateKeyFromSeed("energy rules never activated"));
const STAKE = 1_000n * TRX_PRECISION;
const text = (hex: unknown) => new TextDecoder().decode(fromHex(String(hex)));

async function staked(): Promise<Devnet> {
  const d = await createDevnet({ blockMs: 0 });
  d.fund(owner, { trx: 2n * STAKE });
  d.fund(receiver, { usdt: 1n });
  const built = await callJson(d.app, "/devnet/wallet/freezebalancev2", {
    owner_address: owner,
    frozen_balance: Number(STAKE),
    resource: "ENERGY",
  });
  const sent = await callJson(
    d.app,
    "/devnet/wallet/broadcasttransaction",
    signTransactionJson(built, ownerKey),
  );
  assertEquals(sent.result, true);
  d.mine(1);
  return d;
}

const errorOf = (res: Json) => String(res.Error ?? "").replace(/^class [\w.]+ : /, "");

Deno.test("create APIs refuse what java-tron refuses, with its messages", async () => {
  const d = await staked();
  const delegate = (body: Json) =>
    callJson(d.app, "/devnet/wallet/delegateresource", {
      owner_address: owner,
      receiver_address: receiver,
      resource: "ENERGY",
      balance: Number(TRX_PRECISION),
      ...body,
    });
  assertEquals(
    errorOf(await delegate({ balance: Number(STAKE + 1n) })),
    "delegateBalance must be less than available FreezeEnergyV2 balance",
  );
  assertEquals(
    errorOf(await delegate({ resource: "BANDWIDTH" })),
    "delegateBalance must be less than available FreezeBandwidthV2 balance",
  );
  assertEquals(errorOf(await delegate({ balance: 999_999 })), "delegateBalance must be more than 1TRX");
  assertEquals(errorOf(await delegate({ receiver_address: stranger })), `Account[${stranger}] not exists`);
  assertEquals(
    errorOf(await delegate({ receiver_address: owner })),
    "receiverAddress must not be the same as ownerAddress",
  );
  assertEquals(
    errorOf(await delegate({ receiver_address: d.usdtContractHex })),
    "Do not allow delegate resources to contract addresses",
  );
  assertEquals(
    errorOf(await delegate({ resource: "TRON_POWER" })),
    "ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]",
  );
  const undelegate = await callJson(d.app, "/devnet/wallet/undelegateresource", {
    owner_address: owner,
    receiver_address: receiver,
    resource: "ENERGY",
    balance: Number(TRX_PRECISION),
  });
  assertEquals(errorOf(undelegate), "delegated Resource does not exist");
  const freeze = (body: Json) =>
    callJson(d.app, "/devnet/wallet/freezebalancev2", { owner_address: owner, resource: "ENERGY", ...body });
  assertEquals(errorOf(await freeze({ frozen_balance: 0 })), "frozenBalance must be positive");
  assertEquals(
    errorOf(await freeze({ frozen_balance: 999_999 })),
    "frozenBalance must be greater than or equal to 1 TRX",
  );
  assertEquals(
    errorOf(await freeze({ frozen_balance: Number(2n * STAKE) })),
    "frozenBalance must be less than or equal to accountBalance",
  );
  assertEquals(
    errorOf(await freeze({ owner_address: stranger, frozen_balance: Number(STAKE) })),
    `Account[${stranger}] not exists`,
  );
});

Deno.test("a locked delegation cannot be taken back before its lock expires", async () => {
  const d = await staked();
  const built = await callJson(d.app, "/devnet/wallet/delegateresource", {
    owner_address: owner,
    receiver_address: receiver,
    resource: "ENERGY",
    balance: Number(STAKE),
    lock: true,
  });
  const sent = await callJson(
    d.app,
    "/devnet/wallet/broadcasttransaction",
    signTransactionJson(built, ownerKey),
  );
  assertEquals(sent.result, true);
  d.mine(1);
  const res = await callJson(d.app, "/devnet/wallet/undelegateresource", {
    owner_address: owner,
    receiver_address: receiver,
    resource: "ENERGY",
    balance: Number(STAKE),
  });
  assertEquals(
    errorOf(res),
    `insufficient delegateFrozenBalance(Energy), request=${STAKE}, unlock_balance=0`,
  );
  const [record] = (await callJson(d.app, "/devnet/wallet/getdelegatedresourcev2", {
    fromAddress: owner,
    toAddress: receiver,
  })).delegatedResource as Json[];
  assertEquals(record.frozen_balance_for_energy, Number(STAKE));
  assert((record.expire_time_for_energy as number) > d.chain.head.timestamp);
});

Deno.test("hostile input: NUL bytes, lone surrogates, huge numbers, wrong types answer an Error, never a 500", async () => {
  const d = await staked();
  const bodies: Json[] = [
    { owner_address: owner + "\u0000", receiver_address: receiver, balance: 1_000_000 },
    { owner_address: "\ud800", receiver_address: receiver, balance: 1_000_000 },
    { owner_address: owner, receiver_address: receiver, balance: "9".repeat(400) },
    { owner_address: owner, receiver_address: receiver, balance: { $gt: 0 } },
    { owner_address: owner, receiver_address: receiver, balance: 1_000_000, resource: { x: 1 } },
    { owner_address: owner, receiver_address: receiver, balance: 1_000_000, resource: "ENERGY\u0000" },
    { owner_address: ["a"], receiver_address: receiver, balance: 1_000_000 },
    { owner_address: "T".repeat(100_000), receiver_address: receiver, balance: 1_000_000 },
  ];
  for (const path of ["delegateresource", "undelegateresource", "freezebalancev2"]) {
    for (const body of bodies) {
      const res = await d.app.request(`/devnet/wallet/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, frozen_balance: body.balance }),
      });
      assertEquals(res.status, 200, `${path} ${JSON.stringify(body).slice(0, 80)}`);
      const json = await res.json();
      assert(typeof json.Error === "string", `${path}: ${JSON.stringify(json).slice(0, 200)}`);
    }
  }
  // A signed transaction whose JSON is tampered with into nonsense is refused at broadcast.
  const built = await callJson(d.app, "/devnet/wallet/delegateresource", {
    owner_address: owner,
    receiver_address: receiver,
    resource: "ENERGY",
    balance: Number(TRX_PRECISION),
  });
  const signed = signTransactionJson(built, ownerKey);
  const tampered = structuredClone(signed) as { raw_data: { contract: { parameter: { value: Json } }[] } };
  tampered.raw_data.contract[0].parameter.value.resource = { not: "a resource" };
  const refused = await callJson(d.app, "/devnet/wallet/broadcasttransaction", tampered);
  assertEquals(refused.result, false);
  assertEquals(refused.code, "OTHER_ERROR");
});

Deno.test("50 concurrent broadcasts of one delegation move the resource once", async () => {
  const d = await staked();
  const built = await callJson(d.app, "/devnet/wallet/delegateresource", {
    owner_address: owner,
    receiver_address: receiver,
    resource: "ENERGY",
    balance: Number(STAKE),
  });
  const signed = signTransactionJson(built, ownerKey);
  const replies = await Promise.all(
    Array.from({ length: 50 }, () => callJson(d.app, "/devnet/wallet/broadcasttransaction", signed)),
  );
  assertEquals(replies.filter((r) => r.result === true).length, 1);
  assert(replies.filter((r) => r.result !== true).every((r) => r.code === "DUP_TRANSACTION_ERROR"));
  // A second, different delegation of the same stake is refused against the pending state.
  const again = await callJson(d.app, "/devnet/wallet/delegateresource", {
    owner_address: owner,
    receiver_address: receiver,
    resource: "ENERGY",
    balance: Number(STAKE),
    extra_data: "6f6e6365206d6f7265",
  });
  const second = await callJson(
    d.app,
    "/devnet/wallet/broadcasttransaction",
    signTransactionJson(again, ownerKey),
  );
  assertEquals(second.result, false);
  assertEquals(text(second.message), "delegateBalance must be less than available FreezeEnergyV2 balance");
  d.mine(1);
  const account = await callJson(d.app, "/devnet/wallet/getaccount", { address: receiver });
  assertEquals(
    (account.account_resource as Json).acquired_delegated_frozenV2_balance_for_energy,
    Number(STAKE),
  );
});

Deno.test("an address that only ever received USDT is not an account yet: no delegation until TRX activates it", async () => {
  const d = await staked();
  const payer = privateKeyFromSeed("energy rules payer");
  const fresh = addressFromPrivateKey(privateKeyFromSeed("energy rules usdt only"));
  d.fund(addressFromPrivateKey(payer), { trx: 100n * TRX_PRECISION, usdt: 5_000_000n });
  d.transferUsdt(fresh, 5_000_000n, payer);
  d.mine(1);
  assertEquals(await callJson(d.app, "/devnet/wallet/getaccount", { address: fresh }), {});
  const body = { owner_address: owner, receiver_address: fresh, resource: "ENERGY", balance: Number(STAKE) };
  assertEquals(
    errorOf(await callJson(d.app, "/devnet/wallet/delegateresource", body)),
    `Account[${fresh}] not exists`,
  );

  const activation = await callJson(d.app, "/devnet/wallet/createtransaction", {
    owner_address: owner,
    to_address: fresh,
    amount: 1,
  });
  const sent = await callJson(
    d.app,
    "/devnet/wallet/broadcasttransaction",
    signTransactionJson(activation, ownerKey),
  );
  assertEquals(sent.result, true);
  d.mine(1);
  const built = await callJson(d.app, "/devnet/wallet/delegateresource", body);
  assertEquals(built.Error, undefined);
});

Deno.test("a new lock on the same pair may not end before the running one", async () => {
  const d = await staked();
  const lockFor = (blocks: number) =>
    callJson(d.app, "/devnet/wallet/delegateresource", {
      owner_address: owner,
      receiver_address: receiver,
      resource: "ENERGY",
      balance: Number(TRX_PRECISION),
      lock: true,
      lock_period: blocks,
    });
  const long = await lockFor(28_800);
  assertEquals(
    (await callJson(d.app, "/devnet/wallet/broadcasttransaction", signTransactionJson(long, ownerKey)))
      .result,
    true,
  );
  d.mine(1);
  assert(
    errorOf(await lockFor(100)).startsWith(
      "The lock period for ENERGY this time cannot be less than the remaining time[",
    ),
  );
  assertEquals((await lockFor(28_800 * 2)).Error, undefined);
});
