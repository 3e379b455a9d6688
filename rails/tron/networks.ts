// What identifies each public TRON network: the id of its genesis block (what `wallet/getblockbynum`
// `{"num": 0}` answers as `blockID`), the chain id derived from it (its last 4 bytes, what TronLink and the
// JSON-RPC `eth_chainId` give), and its USDT contract. A node is on the network whose genesis it serves;
// nothing else a node says (its name, its URL) proves it.

export type PublicTronNetwork = "nile" | "mainnet";

export const TRON_NETWORK_IDENTITY = {
  mainnet: {
    genesisBlockId: "00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc",
    chainId: "0x2b6653dc",
    usdtContract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  },
  nile: {
    genesisBlockId: "0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc",
    chainId: "0xcd8690dc",
    usdtContract: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
  },
} as const satisfies Record<
  PublicTronNetwork,
  { genesisBlockId: string; chainId: string; usdtContract: string }
>;

/** The chain id of a genesis block id: its last 4 bytes. */
export function chainIdOf(genesisBlockId: string): string {
  return `0x${genesisBlockId.toLowerCase().slice(-8)}`;
}

/** Which public network a genesis block id is, or null for any other chain (a devnet, shasta, junk). */
export function networkOfGenesis(genesisBlockId: string): PublicTronNetwork | null {
  const id = genesisBlockId.toLowerCase();
  for (const [name, identity] of Object.entries(TRON_NETWORK_IDENTITY)) {
    if (identity.genesisBlockId === id) return name as PublicTronNetwork;
  }
  return null;
}

/** The genesis block id in a `getblockbynum {"num": 0}` answer, or null when it has none. */
export function genesisIdOf(json: unknown): string | null {
  const b = json as { blockID?: unknown; block_header?: { raw_data?: { number?: unknown } } } | null;
  const number = b?.block_header?.raw_data?.number ?? 0;
  if (typeof b?.blockID !== "string" || !/^[0-9a-fA-F]{64}$/.test(b.blockID) || number !== 0) return null;
  return b.blockID.toLowerCase();
}

/** A sentence naming the chain a node serves, for logs and refusals. */
export function describeGenesis(genesisBlockId: string): string {
  const known = networkOfGenesis(genesisBlockId);
  return `${known ?? "an unknown chain"} (genesis ${genesisBlockId}, chain id ${chainIdOf(genesisBlockId)})`;
}
