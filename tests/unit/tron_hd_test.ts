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
import { addressFromPrivateKey } from "../../rails/tron/devnet/crypto.ts";

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
    ...Array.from({ length: 200 }, () => {
      const random = crypto.getRandomValues(new Uint8Array(32));
      return random.reduce((k, b) => (k << 8n) | BigInt(b), 0n) % (n - 1n) + 1n;
    }),
  ];
  const ours = childPublicKeys(parent, tweaks.map(be));
  tweaks.forEach((k, i) => assertEquals(ours[i], G.multiply(k).add(parent).toBytes(false), `tweak ${k}`));
  // A partial sum equal to a table point (parent 5G, tweak 5) is the doubling case: handed to noble.
  assertEquals(childPublicKeys(G.multiply(5n), [be(5n)])[0], G.multiply(10n).toBytes(false));
  // The point at infinity (parent -5G, tweak 5) is no public key: refused, as BIP32 says.
  let refused = false;
  try {
    childPublicKeys(G.multiply(n - 5n), [be(5n)]);
  } catch {
    refused = true;
  }
  assert(refused);
});
