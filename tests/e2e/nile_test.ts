// TRON_NETWORK=nile in production mode, proven against the devnet speaking as nile (no public node is
// reachable from here): the real server (main.ts) as an operator starts it, pointed by TRON_API_URL at a
// devnet whose block 0 is nile's genesis block and whose USDT sits at nile's contract address. A USDT pay-in
// on that contract is CONFIRMING at 1 confirmation and CONFIRMED at the 5th, not before; a payout is sent
// from the hot wallet and CONFIRMED at the 20th confirmation, not before. The same gateway pointed at a
// devnet speaking as mainnet refuses to start, and so do a mainnet gateway pointed at nile and a nile
// gateway told a USDT contract that is not on the chain.
// With DATABASE_URL set the gateway gets a database of its own on that server (dropped afterwards).
import postgres from "postgres";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { createDevnet, type Devnet, parseUnits } from "../../rails/tron/devnet/mod.ts";
import { TRON_NETWORK_IDENTITY } from "../../rails/tron/networks.ts";
import { TRON_PRESETS } from "../../config.ts";
import { approvedMerchant, jsonClient, startGateway, until } from "./process.ts";

const ADMIN_TOKEN = "nile-e2e-admin-token-0123456789";
const NILE = TRON_NETWORK_IDENTITY.nile;
const MAINNET = TRON_NETWORK_IDENTITY.mainnet;

/** The devnet on a loopback port of this test process, producing blocks only when the test mines. */
async function serveDevnet(speakAs?: "nile" | "mainnet") {
  const devnet = await createDevnet({ blockMs: 0, speakAs });
  devnet.mine(30);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, devnet.app.fetch);
  return {
    devnet,
    url: `http://127.0.0.1:${server.addr.port}/devnet`,
    stop: () => server.shutdown(),
  };
}

/** PGlite in DATA_DIR, or (DATABASE_URL set) a database of the gateway's own on that server. */
async function gatewayDatabase(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  if (!serverUrl) return { env: {}, drop: async () => {} };
  const name = `nile_e2e_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** What production needs, nothing of development: as an operator would start it for nile. */
function productionEnv(dataDir: string, apiUrl: string, extra: Record<string, string> = {}) {
  return {
    APP_ENV: "production",
    DATA_DIR: dataDir,
    APP_SECRET: "nile-e2e-app-secret-0123456789-abcdefgh",
    ADMIN_TOKEN,
    TRON_MNEMONIC: "test test test test test test test test test test test junk",
    TRON_NETWORK: "nile",
    TRON_API_URL: apiUrl,
    ...extra,
  };
}

/** The scanner's view in /metrics: the head it saw and how far behind it is. */
async function scannerAt(baseUrl: string): Promise<{ head: number; lag: number } | undefined> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await res.text();
  const head = text.match(/^gateway_scanner_head_block (\d+)$/m);
  const lag = text.match(/^gateway_scanner_lag_blocks (\d+)$/m);
  return head && lag ? { head: Number(head[1]), lag: Number(lag[1]) } : undefined;
}

/** A probe asked at most once a second: payout reads count against the merchant's rate limit. */
function slowly<T>(probe: () => Promise<T | undefined>): () => Promise<T | undefined> {
  return async () => {
    await new Promise((r) => setTimeout(r, 1000));
    return await probe();
  };
}

/** Resolves once the scanner has followed the devnet up to its head. */
function scannerCaughtUp(baseUrl: string, devnet: Devnet) {
  const target = devnet.chain.head.number;
  return until(`the scanner at block ${target}`, async () => {
    const at = await scannerAt(baseUrl);
    return at && at.head === target && at.lag === 0 ? true : undefined;
  }, 60_000);
}

Deno.test("nile's identity: presets, the devnet speaking as nile, and the chain ids", () => {
  assertEquals(TRON_PRESETS.nile.usdtContract, NILE.usdtContract);
  assertEquals(TRON_PRESETS.mainnet.usdtContract, MAINNET.usdtContract);
  assertEquals(NILE.chainId, "0xcd8690dc");
  assertEquals(MAINNET.chainId, "0x2b6653dc");
  assert(NILE.genesisBlockId.endsWith(NILE.chainId.slice(2)));
  assert(MAINNET.genesisBlockId.endsWith(MAINNET.chainId.slice(2)));
});

Deno.test({
  name: "TRON_NETWORK=nile in production against the devnet speaking as nile: pay-in at 5, payout at 20",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const node = await serveDevnet("nile");
    const { devnet } = node;
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-nile-" });
    const db = await gatewayDatabase();
    let miner: ReturnType<typeof setInterval> | undefined;
    const gw = await startGateway(productionEnv(dataDir, node.url, db.env), 60_000);
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN, "Nile shop");
      const api = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...extra }, body);

      await t.step("it runs as production on nile: nile's contract, the default confirmations", async () => {
        const listening = JSON.parse(gw.output.find((l) => l.includes("gateway listening"))!);
        assertEquals(listening.env, "production");
        assertEquals(listening.database, Deno.env.get("DATABASE_URL") ? "postgres" : "pglite");
        assert(!gw.output.some((l) => l.includes("another network")), gw.output.join("\n"));
        const config = (await api("GET", "/v1/config")).json.data;
        assertEquals(config.network, { chain: "TRON", name: "nile", usdtContract: NILE.usdtContract });
        // Not per network: nile waits as long as mainnet would (PAYIN/DEPOSIT/PAYOUT_CONFIRMATIONS).
        assertEquals(config.confirmations, { payin: 5, deposit: 20, payout: 20 });
        const health = await until("the node in use", async () => {
          const h = await (await fetch(`${gw.url}/health`)).json();
          return h.tron === "ok" ? h : undefined;
        });
        assertEquals([health.status, health.tron], ["ok", "ok"]);
        const metrics = await (await fetch(`${gw.url}/metrics`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })).text();
        assertMatch(metrics, /^gateway_tron_node_wrong_network\{[^}]*role="full"[^}]*\} 0$/m);
        const res = await fetch(`${gw.url}/devnet/control/state`);
        assertEquals(res.status, 404, "production mounts no devnet of its own");
        await res.body?.cancel();
      });

      await t.step(
        "a USDT pay-in on nile's contract: CONFIRMING at 1, still at 4, CONFIRMED at 5",
        async () => {
          const payin = (await api("POST", "/v1/payments", { amount: "100" })).json.data;
          assertEquals(payin.status, "AWAITING_PAYMENT");
          const status = async () =>
            await (await fetch(`${gw.url}/checkout/${payin.transactionId}/status`)).json();
          const txId = devnet.transferUsdt(payin.address, parseUnits(payin.amountExpected, 6));
          devnet.mine(1);
          const included = devnet.chain.findTx(txId)!.block.number;
          assertEquals(devnet.chain.findTx(txId)!.included.info.contract_address, devnet.usdtContractHex);
          await until("CONFIRMING at 1 confirmation", async () => {
            const s = await status();
            return s.status === "CONFIRMING" && s.confirmations === 1 ? true : undefined;
          });
          devnet.mine(3);
          await scannerCaughtUp(gw.url, devnet);
          const at4 = await status();
          assertEquals([at4.status, at4.confirmations, at4.required], ["CONFIRMING", 4, 5]);
          assertEquals(devnet.chain.head.number - included + 1, 4);
          devnet.mine(1);
          const confirmed = await until("CONFIRMED at 5", async () => {
            const p = (await api("GET", `/v1/payments/${payin.transactionId}`)).json.data;
            return p.status === "CONFIRMED" ? p : undefined;
          });
          assertEquals(confirmed.txHash, txId);
          assertEquals(confirmed.amountReceived, "101.500000");
          assertEquals((await status()).confirmations, 5);
        },
      );

      const dest = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
      await t.step(
        "a payout from the funded hot wallet: broadcast, not CONFIRMED at 19, CONFIRMED at 20",
        async () => {
          // The operator funds the hot wallet with test TRX (on nile: from a faucet); here the devnet's.
          const treasury = (await admin("GET", "/admin/api/treasury")).json.data;
          devnet.fund(treasury.hotWallet.address, { trx: 50_000_000_000n });
          assertEquals(
            (await api("POST", "/v1/wallets/whitelist", { address: dest, usageContexts: ["PAYOUT"] })).status,
            201,
          );
          // Blocks go on (a block every 300 ms) until the payout is broadcast: credits become spendable 19 blocks
          // deep, the deposit address is swept to the hot wallet.
          miner = setInterval(() => devnet.mine(1), 300);
          await until(
            "the credit spendable",
            slowly(async () => {
              const e = await api("POST", "/v1/payout/estimate", { amount: "20", destinationAddress: dest });
              return e.json.data?.sufficient ? true : undefined;
            }),
            90_000,
          );
          const payout = await api("POST", "/v1/payout", { amount: "20", destinationAddress: dest }, {
            "idempotency-key": crypto.randomUUID(),
          });
          assertEquals(payout.status, 201, JSON.stringify(payout.json));
          const id = payout.json.data.transactionId;
          const broadcast = await until(
            "the payout broadcast",
            slowly(async () => {
              const p = await api("GET", `/v1/payout/${id}`);
              assertEquals(p.status, 200, JSON.stringify(p.json));
              const s = p.json.data.status;
              return s === "BROADCAST" || s === "CONFIRMED" || s === "FAILED" ? p.json.data : undefined;
            }),
            120_000,
          );
          clearInterval(miner);
          miner = undefined;
          assertEquals(broadcast.status, "BROADCAST");
          if (!devnet.chain.findTx(broadcast.txHash)) devnet.mine(1);
          const included = devnet.chain.findTx(broadcast.txHash)!.block.number;
          const confirmations = devnet.chain.head.number - included + 1;
          assert(confirmations < 20, `already ${confirmations} confirmations when the miner stopped`);
          devnet.mine(19 - confirmations);
          await scannerCaughtUp(gw.url, devnet);
          assertEquals(devnet.chain.head.number - included + 1, 19);
          assertEquals((await api("GET", `/v1/payout/${id}`)).json.data.status, "BROADCAST");
          devnet.mine(1);
          const confirmed = await until(
            "CONFIRMED at 20",
            slowly(async () => {
              const p = (await api("GET", `/v1/payout/${id}`)).json.data;
              return p.status === "CONFIRMED" ? p : undefined;
            }),
          );
          assertEquals(confirmed.txHash, broadcast.txHash);
          const balance = await (await fetch(`${node.url}/control/balance/${dest}`)).json();
          assertEquals(balance.usdt, "20");
          // 98.50 credited, 20 paid out and its 1.00 fee.
          const wallet = (await api("GET", "/v1/wallets/balance")).json.data.balances
            .find((b: { currency: string }) => b.currency === "USDT_TRC20");
          assertEquals(wallet.balance, "77.500000");
        },
      );
    } finally {
      if (miner !== undefined) clearInterval(miner);
      await gw.stop();
      await node.stop();
      await db.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "a gateway pointed at a node of another network refuses to start, and says which",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-nile-wrong-" });
    const mainnet = await serveDevnet("mainnet");
    const nile = await serveDevnet("nile");
    const plain = await serveDevnet();
    const refusal = async (dir: string, env: Record<string, string>): Promise<string> => {
      try {
        const gw = await startGateway(productionEnv(`${dataDir}/${dir}`, "", env), 60_000);
        await gw.stop();
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        assertMatch(message, /^gateway exited with 1:/);
        return message;
      }
      throw new Error("the gateway started");
    };
    try {
      await t.step("TRON_NETWORK=nile, the node speaks as mainnet", async () => {
        const message = await refusal("a", { TRON_API_URL: mainnet.url });
        assertMatch(message, /TRON_NETWORK=nile needs nile nodes/);
        assertMatch(
          message,
          new RegExp(`${mainnet.url} serves mainnet \\(genesis ${MAINNET.genesisBlockId}`),
        );
        assertMatch(message, /chain id 0x2b6653dc/);
      });
      await t.step("TRON_NETWORK=mainnet, the node speaks as nile", async () => {
        const message = await refusal("b", { TRON_NETWORK: "mainnet", TRON_API_URL: nile.url });
        assertMatch(message, /TRON_NETWORK=mainnet needs mainnet nodes/);
        assertMatch(
          message,
          /serves nile \(genesis 0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc/,
        );
      });
      await t.step("one right node and one of a plain devnet: still refused", async () => {
        const message = await refusal("c", { TRON_API_URL: `${nile.url},${plain.url}` });
        assertMatch(message, new RegExp(`${plain.url} serves an unknown chain`));
        assert(!message.includes(`${nile.url} serves`), message);
      });
      await t.step("TRON_NETWORK=nile with mainnet's USDT contract: no such contract on nile", async () => {
        const message = await refusal("d", {
          TRON_API_URL: nile.url,
          TRON_USDT_CONTRACT: MAINNET.usdtContract,
        });
        assertMatch(message, /the USDT contract TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t is no contract on nile/);
        assertMatch(message, /nile's USDT is TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf/);
      });
    } finally {
      await mainnet.stop();
      await nile.stop();
      await plain.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
