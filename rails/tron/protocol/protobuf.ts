// Minimal protobuf wire format: just enough for TRON's Transaction, Transaction.raw,
// Transaction.Contract, google.protobuf.Any, TriggerSmartContract, TransferContract
// and BlockHeader.raw. Fields are written in field-number order and proto3 defaults
// (0, empty) are omitted, as java-tron and google-protobuf both do, so bytes (and
// therefore txIDs) match a real node's.

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

export class ProtoWriter {
  private chunks: number[] = [];

  private varint(value: bigint): void {
    // int64 negatives are encoded as their 64-bit two's complement.
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.chunks.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.chunks.push(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  /** int64 / int32 / enum; omitted when zero (proto3 default). */
  int(field: number, value: bigint | number | undefined): this {
    if (value === undefined) return this;
    const v = BigInt(value);
    if (v === 0n) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(v);
    return this;
  }

  /** bytes / string / embedded message; omitted when empty (proto3 default). */
  bytes(field: number, value: Uint8Array | undefined): this {
    if (value === undefined || value.length === 0) return this;
    this.tag(field, WIRE_BYTES);
    this.varint(BigInt(value.length));
    for (const b of value) this.chunks.push(b);
    return this;
  }

  /** Embedded message that is written even when empty (repeated elements). */
  message(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_BYTES);
    this.varint(BigInt(value.length));
    for (const b of value) this.chunks.push(b);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return this.bytes(field, value === undefined ? undefined : new TextEncoder().encode(value));
  }

  finish(): Uint8Array {
    return new Uint8Array(this.chunks);
  }
}

export interface ProtoField {
  field: number;
  wire: number;
  /** Set for varint fields. */
  int?: bigint;
  /** Set for length-delimited fields. */
  bytes?: Uint8Array;
}

/** Reads every field of one message; unknown wire types throw, as a malformed message should. */
export function readFields(buf: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  let pos = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error("truncated varint");
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error("varint too long");
    }
  };
  while (pos < buf.length) {
    const key = Number(readVarint());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 0) throw new Error("invalid field number 0");
    if (wire === WIRE_VARINT) {
      fields.push({ field, wire, int: BigInt.asIntN(64, readVarint()) });
    } else if (wire === WIRE_BYTES) {
      const len = Number(readVarint());
      if (pos + len > buf.length) throw new Error("truncated bytes field");
      fields.push({ field, wire, bytes: buf.slice(pos, pos + len) });
      pos += len;
    } else if (wire === WIRE_FIXED64) {
      pos += 8;
    } else if (wire === WIRE_FIXED32) {
      pos += 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
    if (pos > buf.length) throw new Error("truncated message");
  }
  return fields;
}

export function firstBytes(fields: ProtoField[], field: number): Uint8Array {
  return fields.find((f) => f.field === field && f.bytes)?.bytes ?? new Uint8Array();
}

export function firstInt(fields: ProtoField[], field: number): bigint {
  return fields.find((f) => f.field === field && f.int !== undefined)?.int ?? 0n;
}

export function allBytes(fields: ProtoField[], field: number): Uint8Array[] {
  return fields.filter((f) => f.field === field && f.bytes).map((f) => f.bytes!);
}
