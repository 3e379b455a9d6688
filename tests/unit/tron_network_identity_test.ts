// The node pool's network check (issue 24, nile): a node is used only once it has served the configured
// network's genesis block; one serving another chain's is never used, one that does not answer waits until
// it does. The nodes are devnets speaking as nile and mainnet, called without sockets.
import { createDevnet, type Devnet } from "../../rails/tron/devnet/mod.ts";
import { createNodePool } from "../../rails/tron/node_pool.ts";
import {
  chainIdOf,
  genesisIdOf,
  networkOfGenesis,
  TRON_NETWORK_IDENTITY,
} from "../../rails/tron/networks.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";

const NILE = TRON_NETWORK_IDENTITY.nile;
const MAINNET = TRON_NETWORK_IDENTITY.mainnet;

/** Routes each host to its devnet; `down` hosts refuse the connection. */
function nodes(devnets: Record<string, Devnet>, down = new Set<string>()) {
  const asked: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(String(input));
    asked.push(`${url.host}${url.pathname}`);
    if (down.has(url.host)) return Promise.reject(new TypeError("connection refused"));
    return Promise.resolve(devnets[url.host].app.fetch(new Request(`http://x/devnet${url.pathname}`, init)));
  };
  return { fetch, asked, down };
}

Deno.test("the identity table: chain ids are the genesis ids' last 4 bytes; answers read as java-tron gives them", () => {
  assertEquals(chainIdOf(NILE.genesisBlockId), "0xcd8690dc");
  assertEquals(chainIdOf(MAINNET.genesisBlockId), "0x2b6653dc");
  assertEquals(networkOfGenesis(NILE.genesisBlockId.toUpperCase()), "nile");
  assertEquals(networkOfGenesis("00".repeat(32)), null);
  // proto3 JSON omits the genesis block's number; {} (no such block) and another block are not a genesis.
  assertEquals(
    genesisIdOf({ blockID: MAINNET.genesisBlockId, block_header: { raw_data: {} } }),
    MAINNET.genesisBlockId,
  );
  assertEquals(genesisIdOf({}), null);
  assertEquals(
    genesisIdOf({ blockID: NILE.genesisBlockId, block_header: { raw_data: { number: 5 } } }),
    null,
  );
  assertEquals(genesisIdOf({ blockID: "zz" }), null);
  assertEquals(genesisIdOf(null), null);
});

Deno.test("the devnet speaking as nile serves nile's block 0 and USDT contract; its chain descends from it", async () => {
  const devnet = await createDevnet({ blockMs: 0, speakAs: "nile" });
  devnet.mine(2);
  assertEquals(devnet.genesisBlockId, NILE.genesisBlockId);
  assertEquals(devnet.usdtContract, NILE.usdtContract);
  assertEquals(devnet.chain.blocks[1].parentHash, NILE.genesisBlockId);
  const byId = await devnet.app.fetch(
    new Request("http://x/devnet/wallet/getblockbyid", {
      method: "POST",
      body: JSON.stringify({ value: NILE.genesisBlockId }),
    }),
  );
  assertEquals((await byId.json()).blockID, NILE.genesisBlockId);
  // A transfer is accepted (TAPOS refers to these blocks) and lands on nile's contract.
  const txId = devnet.transferUsdt("TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", 1_000_000n);
  devnet.mine(1);
  assertEquals(devnet.chain.findTx(txId)?.included.contractRet, "SUCCESS");
  const plain = await createDevnet({ blockMs: 0 });
  assertEquals(networkOfGenesis(plain.genesisBlockId), null);
});

Deno.test("a node on another network is never used; the right one answers every read", async () => {
  const { fetch, asked } = nodes({
    "nile.node": await createDevnet({ blockMs: 0, speakAs: "nile" }),
    "main.node": await createDevnet({ blockMs: 0, speakAs: "mainnet" }),
  });
  const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
  const pool = createNodePool([{ url: "http://main.node" }, { url: "http://nile.node" }], {
    fetch,
    genesisBlockId: NILE.genesisBlockId,
    onWarning: (message, fields) => warnings.push({ message, fields }),
  });
  try {
    const verdicts = await pool.verifyIdentity();
    assertEquals(verdicts.map((v) => [v.url, v.identity, v.genesisBlockId]), [
      ["http://main.node", "wrong", MAINNET.genesisBlockId],
      ["http://nile.node", "verified", NILE.genesisBlockId],
    ]);
    assertEquals(warnings.length, 1);
    assertEquals(warnings[0].message, "TRON node is on another network: never used");
    assertMatch(String(warnings[0].fields.serves), /^mainnet \(genesis 0{16}1ebf.*chain id 0x2b6653dc\)$/);
    asked.length = 0;
    for (let i = 0; i < 5; i++) {
      const res = await pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST", body: "{}" });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    }
    assert(asked.every((a) => !a.startsWith("main.node/wallet/getnowblock")), asked.join(", "));
    const health = pool.health();
    assertEquals(health.map((h) => [h.identity, h.benched]), [["wrong", true], ["verified", false]]);
    assertEquals(warnings.length, 1, "warned once, not at every probe");
  } finally {
    await pool.close();
  }
});

Deno.test("a node that does not answer its genesis block is not used until it does", async () => {
  let t = 1_000_000;
  const { fetch, down } = nodes(
    { "nile.node": await createDevnet({ blockMs: 0, speakAs: "nile" }) },
    new Set(["nile.node"]),
  );
  const pool = createNodePool([{ url: "http://nile.node" }], {
    fetch,
    now: () => t,
    genesisBlockId: NILE.genesisBlockId,
  });
  try {
    assertEquals((await pool.verifyIdentity()).map((v) => v.identity), ["unchecked"]);
    const read = () =>
      pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST", body: "{}" })
        .then(async (res) => {
          await res.body?.cancel();
          return `answered ${res.status}`;
        }, (err) => String(err));
    // The first read probes (the node still down): nothing to ask.
    assertMatch(await read(), /no trusted TRON node/);
    // The node is back, but unverified: no read goes to it before the next probe has verified it.
    down.clear();
    assertMatch(await read(), /no trusted TRON node/);
    assertEquals(pool.health()[0].identity, "unchecked");
    t += 60_000; // past the bench and the probe interval: the next request probes, verifies, is answered
    assertEquals(await read(), "answered 200");
    assertEquals(pool.health()[0].identity, "verified");
  } finally {
    await pool.close();
  }
});

Deno.test("without a genesis id (the devnet) every node is used as before", async () => {
  const { fetch } = nodes({ "main.node": await createDevnet({ blockMs: 0, speakAs: "mainnet" }) });
  const pool = createNodePool([{ url: "http://main.node" }], { fetch });
  try {
    assertEquals((await pool.verifyIdentity()).map((v) => v.identity), ["verified"]);
    const res = await pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST", body: "{}" });
    assertEquals(res.status, 200);
    await res.body?.cancel();
  } finally {
    await pool.close();
  }
});
