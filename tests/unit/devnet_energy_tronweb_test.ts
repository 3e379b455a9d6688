// The Stake 2.0 contracts as unmodified tronweb 6.5.1 builds and signs them: the devnet's
// protobuf encoding matches tronweb's byte for byte, and tronweb's transactions are accepted.
import { TronWeb } from "tronweb";
import { assert, assertEquals } from "../assert.ts";
import { createDevnet } from "../../rails/tron/devnet/mod.ts";
import {
  addressFromPrivateKey,
  privateKeyFromSeed,
  toBase58Address,
  toHex,
} from "../../rails/tron/protocol/crypto.ts";
import {
  decodeRaw,
  encodeRaw,
  rawFromJson,
  rawToJson,
  txIdOf,
} from "../../rails/tron/protocol/transaction.ts";
import { TRX_PRECISION } from "../../rails/tron/devnet/energy.ts";

const owner = "414e6f9c68df8d3dbf2753621b3be64eb59919dd86";
const other = "41a48d1a31bd5c301ee609babb7bae4a4442d159ea";
const header = {
  ref_block_bytes: "0a1b",
  ref_block_hash: "0123456789abcdef",
  expiration: 1_700_000_060_000,
  timestamp: 1_700_000_000_000,
};
const contract = (type: string, value: Record<string, unknown>) => ({
  contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
  ...header,
});

Deno.test("the Stake 2.0 contracts encode as tronweb's protobuf does", () => {
  const tronWeb = new TronWeb({ fullHost: "http://127.0.0.1:1" });
  const cases = [
    contract("FreezeBalanceV2Contract", {
      frozen_balance: 5_000_000,
      owner_address: owner,
      resource: "ENERGY",
    }),
    contract("FreezeBalanceV2Contract", { frozen_balance: 1_000_000, owner_address: owner }),
    contract("DelegateResourceContract", {
      balance: 2_000_000,
      lock: true,
      lock_period: 28_800,
      owner_address: owner,
      receiver_address: other,
      resource: "ENERGY",
    }),
    contract("DelegateResourceContract", {
      balance: 3_000_000,
      owner_address: owner,
      receiver_address: other,
    }),
    contract("UnfreezeBalanceV2Contract", {
      owner_address: owner,
      resource: "ENERGY",
      unfreeze_balance: 4_000_000,
    }),
    contract("WithdrawExpireUnfreezeContract", { owner_address: owner }),
    contract("UnDelegateResourceContract", {
      balance: 2_000_000,
      owner_address: owner,
      receiver_address: other,
      resource: "ENERGY",
    }),
  ];
  for (const rawData of cases) {
    const ours = encodeRaw(rawFromJson(rawData));
    const pb = tronWeb.utils.transaction.txJsonToPb({ raw_data: rawData, visible: false });
    assertEquals(toHex(ours), toHex(pb.getRawData().serializeBinary()));
    assertEquals(txIdOf(ours), tronWeb.utils.transaction.txPbToTxID(pb).replace(/^0x/, ""));
    assertEquals(rawToJson(decodeRaw(ours), false), rawData);
  }
});

Deno.test({
  name:
    "tronweb 6.5.1: freezeBalanceV2, delegateResource, undelegateResource, unfreezeBalanceV2 accepted; resources read",
  fn: async () => {
    const devnet = await createDevnet({ blockMs: 0 });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, devnet.app.fetch);
    try {
      const tronWeb = new TronWeb({ fullHost: `http://127.0.0.1:${server.addr.port}/devnet` });
      const me = devnet.customerAddress;
      const receiver = toBase58Address(addressFromPrivateKey(privateKeyFromSeed("tronweb energy receiver")));
      devnet.fund(receiver, { usdt: 1n });
      // tronweb reads the head's number for TAPOS; the genesis block prints none (proto3 zero).
      devnet.mine(1);
      const stake = 50_000n * TRX_PRECISION;
      const part = 20_000n * TRX_PRECISION;
      const sendSigned = async (tx: Parameters<typeof tronWeb.trx.sign>[0]) => {
        // sign() answers a string only when given one; a transaction comes back signed.
        const signed = await tronWeb.trx.sign(tx, devnet.customerPrivateKey) as Exclude<
          Awaited<ReturnType<typeof tronWeb.trx.sign>>,
          string
        >;
        const sent = await tronWeb.trx.sendRawTransaction(signed);
        assertEquals(sent.result, true, JSON.stringify(sent));
        assertEquals(sent.txid, signed.txID);
        devnet.mine(1);
        const info = await tronWeb.trx.getUnconfirmedTransactionInfo(signed.txID);
        assertEquals(info.id, signed.txID);
        return signed;
      };

      const before = await tronWeb.trx.getUnconfirmedAccount(me);
      await sendSigned(await tronWeb.transactionBuilder.freezeBalanceV2(Number(stake), "ENERGY", me));
      const frozen = await tronWeb.trx.getUnconfirmedAccount(me);
      assertEquals(BigInt(before.balance) - BigInt(frozen.balance), stake);
      assertEquals(frozen.frozenV2?.find((f) => f.type === "ENERGY")?.amount, Number(stake));
      const mine = await tronWeb.trx.getAccountResources(me);
      assert((mine.EnergyLimit ?? 0) > 0);

      await sendSigned(
        await tronWeb.transactionBuilder.delegateResource(Number(part), receiver, "ENERGY", me),
      );
      const theirs = await tronWeb.trx.getAccountResources(receiver);
      assertEquals(
        theirs.EnergyLimit,
        Math.floor(20_000 * (theirs.TotalEnergyLimit! / theirs.TotalEnergyWeight!)),
      );
      const delegated = await tronWeb.trx.getUnconfirmedAccount(me);
      assertEquals(delegated.account_resource?.delegated_frozenV2_balance_for_energy, Number(part));

      await sendSigned(
        await tronWeb.transactionBuilder.undelegateResource(Number(part), receiver, "ENERGY", me),
      );
      assertEquals((await tronWeb.trx.getAccountResources(receiver)).EnergyLimit, undefined);
      const back = await tronWeb.trx.getUnconfirmedAccount(me);
      assertEquals(back.frozenV2?.find((f) => f.type === "ENERGY")?.amount, Number(stake));

      await sendSigned(await tronWeb.transactionBuilder.unfreezeBalanceV2(Number(part), "ENERGY", me));
      const unfreezing = await tronWeb.trx.getUnconfirmedAccount(me);
      assertEquals(unfreezing.frozenV2?.find((f) => f.type === "ENERGY")?.amount, Number(stake - part));
      assertEquals(unfreezing.unfrozenV2?.[0]?.unfreeze_amount, Number(part));
    } finally {
      await server.shutdown();
      await devnet.stop();
    }
  },
});
