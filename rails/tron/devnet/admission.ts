// Broadcast admission checks that do not depend on account state: signature and TAPOS.
import type { Block } from "./block.ts";
import { recoverSigner, sha256, toBase58Address } from "../protocol/crypto.ts";
import { TxRejected } from "./executor.ts";
import type { SignedTransaction } from "../protocol/transaction.ts";

const TAPOS_WINDOW = 65_536;

/** The one signature must recover to the owner (single-key owner/active permission). */
export function checkSignature(tx: SignedTransaction): void {
  const owner = tx.raw.contract.value.owner_address;
  if (tx.signatures.length === 0) {
    throw new TxRejected("SIGERROR", "Validate signature error: miss sig or contract");
  }
  if (tx.raw.permissionId !== 0 && tx.raw.permissionId !== 2) {
    throw new TxRejected("SIGERROR", `Validate signature error: permission isn't exit`);
  }
  if (tx.signatures.length > 1) {
    throw new TxRejected(
      "SIGERROR",
      `Validate signature error: Signature count is ${tx.signatures.length} more than key counts of permission : 1`,
    );
  }
  const hash = sha256(tx.rawBytes);
  const signer = recoverSigner(hash, tx.signatures[0]);
  if (signer !== owner) {
    const who = signer ? toBase58Address(signer) : "an unrecoverable key";
    throw new TxRejected(
      "SIGERROR",
      `Validate signature error: ${
        tx.signatures[0]
      } is signed by ${who} but it is not contained of permission.`,
    );
  }
}

/** ref_block_bytes/ref_block_hash must name a block on this chain (so a reorg invalidates them). */
export function checkTapos(tx: SignedTransaction, blocks: Block[]): void {
  const refLow = parseInt(tx.raw.refBlockBytes || "0", 16);
  const head = blocks[blocks.length - 1].number;
  let number = head - ((head - refLow) & 0xffff);
  if (number < 0 || head - number >= TAPOS_WINDOW) number = -1;
  const block = number >= 0 ? blocks[number] : undefined;
  if (
    !block || block.blockID.slice(16, 32) !== tx.raw.refBlockHash.toLowerCase() ||
    tx.raw.refBlockBytes.length !== 4
  ) {
    throw new TxRejected(
      "TAPOS_ERROR",
      `Tapos check error: ref_block_bytes ${tx.raw.refBlockBytes} / ref_block_hash ${tx.raw.refBlockHash} not found`,
    );
  }
}
