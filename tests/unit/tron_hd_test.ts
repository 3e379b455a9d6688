import { TronWeb } from "tronweb";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { childPublicKeys } from "../../rails/tron/secp256k1_base.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import {
  createAddressDeriver,
  createDeriver,
  deriveTronAccount,
  generateMnemonic,
  isValidMnemonic,
  tronPath,
} from "../../rails/tron/hd.ts";
import { isTronAddress, toBase58Address, toHexAddress } from "../../rails/tron/address.ts";
import {
  addressesFromPublicKey,
  addressFromPrivateKey,
  addressFromPublicKey,
  base58CheckEncode,
  base58Encode,
  keccak256,
  sha256,
  toHex,
} from "../../rails/tron/protocol/crypto.ts";
import { base58 } from "@scure/base";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

const MNEMONIC = "test test test test test test test test test test test junk";

Deno.test("hd: m/44'/195'/0'/0/0 of the well-known mnemonic matches TronWeb.fromMnemonic", () => {
  const ours = deriveTronAccount(MNEMONIC, 0, 0);
  const theirs = TronWeb.fromMnemonic(MNEMONIC, "m/44'/195'/0'/0/0") as {
    address: string;
    privateKey: string;
  };
  assertEquals(ours.address, theirs.address);
  assertEquals("0x" + ours.privateKeyHex, theirs.privateKey.toLowerCase());
  assertEquals(ours.addressHex, toHexAddress(ours.address));
  assertEquals(addressFromPrivateKey(ours.privateKeyHex), ours.addressHex);
  assertEquals(tronPath(0, 0), "m/44'/195'/0'/0/0");
});

Deno.test("hd: 50 addresses per account agree with tronweb, are valid, and live/sandbox never collide", () => {
  const live = createDeriver(MNEMONIC, 0);
  const sandbox = createDeriver(MNEMONIC, 1);
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    for (const [deriver, account] of [[live, 0], [sandbox, 1]] as const) {
      const a = deriver.derive(i);
      assert(TronWeb.isAddress(a.address), a.address);
      assert(isTronAddress(a.address), a.address);
      assertEquals(toBase58Address(a.addressHex), a.address);
      assertEquals(a, deriveTronAccount(MNEMONIC, account, i));
      assert(!seen.has(a.address), `collision at account ${account} index ${i}`);
      seen.add(a.address);
    }
  }
  assertEquals(seen.size, 100);
  // Spot-check deeper indexes and account 1 against tronweb's own derivation.
  for (const [account, index] of [[0, 49], [1, 0], [1, 37]]) {
    const theirs = TronWeb.fromMnemonic(MNEMONIC, tronPath(account, index)) as { address: string };
    assertEquals(deriveTronAccount(MNEMONIC, account, index).address, theirs.address);
  }
});

Deno.test("hd: public derivation from the account xpub gives exactly the private derivation's addresses", () => {
  for (const account of [0, 1]) {
    const full = createDeriver(MNEMONIC, account);
    const fast = createAddressDeriver(MNEMONIC, account);
    for (let i = 0; i < 200; i++) {
      const { address, addressHex } = full.derive(i);
      assertEquals(fast.address(i), { address, addressHex });
    }
  }
  // Far indexes too, against @scure/bip32 (through createDeriver) and tronweb's own derivation.
  for (const [account, index] of [[0, 2 ** 31 - 1], [1, 1_000_003], [0, 65_536]]) {
    const fast = createAddressDeriver(MNEMONIC, account).address(index);
    assertEquals(fast.address, createDeriver(MNEMONIC, account).derive(index).address);
    const theirs = TronWeb.fromMnemonic(MNEMONIC, tronPath(account, index)) as { address: string };
    assertEquals(fast.address, theirs.address);
  }
  assertEquals(createAddressDeriver(MNEMONIC, 0).account, 0);
});

Deno.test("hd: a batch of addresses (one shared inversion) is exactly the addresses one by one", async () => {
  for (const account of [0, 1]) {
    const full = createDeriver(MNEMONIC, account);
    const fast = createAddressDeriver(MNEMONIC, account);
    for (const [start, count] of [[0, 1], [3, 16], [1_000, 100], [2 ** 31 - 5, 5]]) {
      const batch = fast.addresses(start, count);
      assertEquals(batch.length, count);
      batch.forEach((a, i) => {
        const { address, addressHex } = full.derive(start + i);
        assertEquals(a, { address, addressHex });
      });
    }
    assertEquals(fast.addresses(7, 0), []);
    // Past the last non-hardened index: refused, never a hardened address.
    await assertRejects(() => Promise.resolve().then(() => fast.addresses(2 ** 31 - 2, 3)));
  }
});

Deno.test("hd: batches of 16 over many indexes of accounts 0 and 1 are exactly @scure/bip32's", () => {
  for (const account of [0, 1]) {
    const full = createDeriver(MNEMONIC, account);
    const fast = createAddressDeriver(MNEMONIC, account);
    const starts = [
      16,
      4_096,
      2 ** 31 - 16,
      ...Array.from({ length: 22 }, () => Math.floor(Math.random() * (2 ** 31 - 16))),
    ];
    for (const start of starts) {
      fast.addresses(start, 16).forEach((a, i) => {
        const { address, addressHex } = full.derive(start + i);
        assertEquals(a, { address, addressHex }, `account ${account} index ${start + i}`);
      });
    }
  }
});

Deno.test("hd: mnemonics are 24 English words, validated; bad input is refused", () => {
  const m = generateMnemonic();
  assertEquals(m.split(" ").length, 24);
  assert(isValidMnemonic(m));
  assert(m !== generateMnemonic());
  assert(isValidMnemonic(MNEMONIC));
  assert(isValidMnemonic(`  ${MNEMONIC.replaceAll(" ", "   ")} `));
  assert(!isValidMnemonic("test test test test test test test test test test test test"));
  assert(!isValidMnemonic("not a mnemonic"));
  assert(!isValidMnemonic(""));
  let threw = 0;
  for (
    const f of [
      () => createDeriver("not a mnemonic", 0),
      () => createDeriver(MNEMONIC, -1),
      () => createDeriver(MNEMONIC, 0).derive(2 ** 31),
      () => createDeriver(MNEMONIC, 0).derive(1.5),
      () => createAddressDeriver("not a mnemonic", 0),
      () => createAddressDeriver(MNEMONIC, 0).address(-1),
      () => createAddressDeriver(MNEMONIC, 0).address(2 ** 31),
    ]
  ) {
    try {
      f();
    } catch {
      threw++;
    }
  }
  assertEquals(threw, 7);
});

Deno.test("hd: the fixed-base comb gives @noble/curves' parent + tweak * G, special cases included", () => {
  const G = secp256k1.Point.BASE;
  const n = secp256k1.Point.CURVE().n;
  const be = (k: bigint) => {
    const out = new Uint8Array(32);
    for (let i = 31; i >= 0; i--, k >>= 8n) out[i] = Number(k & 0xffn);
    return out;
  };
  const parent = G.multiply(0x5eed_f00dn);
  const tweaks = [
    1n,
    2n,
    255n,
    256n,
    n - 1n,
    n - 2n,
    1n << 255n,
    // Signed 12-bit digits at their edges: +2048 (no carry), -2047 and -1 (carries running up every window).
    BigInt("0x" + "800".repeat(21) + "0"),
    BigInt("0x" + "801".repeat(21) + "0"),
    BigInt("0x" + "fff".repeat(21) + "0") % n,
    (1n << 252n) - 1n,
    4095n,
    2048n,
    2049n,
    1n << 252n,
    ...Array.from({ length: 200 }, () => {
      const random = crypto.getRandomValues(new Uint8Array(32));
      return random.reduce((k, b) => (k << 8n) | BigInt(b), 0n) % (n - 1n) + 1n;
    }),
  ];
  const ours = childPublicKeys(parent, tweaks.map(be));
  tweaks.forEach((k, i) => assertEquals(ours[i], G.multiply(k).add(parent).toBytes(false), `tweak ${k}`));
  // A partial sum equal to a table point (parent 5G, tweak 5) is the doubling case: handed to noble.
  assertEquals(childPublicKeys(G.multiply(5n), [be(5n)])[0], G.multiply(10n).toBytes(false));
  // Equal sums one level up the tree: points [parent, 3G, 5 * 4096G, 7 * 2^24G] with parent + 3G equal to
  // the sum of the other two. Handed to noble, the other tweaks of the batch unaffected.
  const pair = 5n * 4096n + 7n * (1n << 24n);
  const parent2 = G.multiply(pair - 3n);
  const batch = [1n << 200n, pair + 3n, n - 2n];
  assertEquals(
    childPublicKeys(parent2, batch.map(be)),
    batch.map((k) => G.multiply(k).add(parent2).toBytes(false)),
  );
  // The point at infinity (parent -5G, tweak 5) is no public key: refused, as BIP32 says.
  let refused = false;
  try {
    childPublicKeys(G.multiply(n - 5n), [be(5n)]);
  } catch {
    refused = true;
  }
  assert(refused);
});

Deno.test("crypto: hashes, hex and base58 answer as @noble/hashes and @scure/base, the scratch states reused", () => {
  for (let length = 0; length < 300; length += length < 70 ? 1 : 37) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    if (length > 2) bytes.fill(0, 0, length % 4);
    assertEquals(sha256(bytes), nobleSha256(bytes));
    assertEquals(keccak256(bytes), keccak_256(bytes));
    assertEquals(toHex(bytes), Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
    assertEquals(base58Encode(bytes), base58.encode(bytes), `base58 of ${toHex(bytes)}`);
  }
  for (const bytes of [[0], [0, 0, 0], [0, 1], [57], [58], [255, 255], new Array(25).fill(255)]) {
    assertEquals(base58Encode(Uint8Array.from(bytes)), base58.encode(Uint8Array.from(bytes)));
  }
  const payload = Uint8Array.from([0x41, ...crypto.getRandomValues(new Uint8Array(20))]);
  const checksum = nobleSha256(nobleSha256(payload)).subarray(0, 4);
  assertEquals(base58CheckEncode(payload), base58.encode(Uint8Array.from([...payload, ...checksum])));
  const publicKey = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false);
  const addressHex = "41" + toHex(keccak_256(publicKey.subarray(1)).subarray(12));
  assertEquals(addressFromPublicKey(publicKey), addressHex);
  assertEquals(addressesFromPublicKey(publicKey), { address: toBase58Address(addressHex), addressHex });
  assertEquals(addressesFromPublicKey(publicKey).address, TronWeb.address.fromHex(addressHex));
});
