// What every storage backend offers, apart from rails/storage/mod.ts so backends need not import the chooser.

export type StoredObject = { bytes: Uint8Array; contentType: string };

export interface ObjectStorage {
  /** Stores `bytes` under `key`; storing the same key again is harmless (same bytes). */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The object, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
}

/** Keys are `<64 hex>.<ext>`: nothing else reaches a backend (no path tricks in the directory one). */
/** `dsp`: dispute evidence (any of its kinds; the type is kept with the object), never public. */
export const OBJECT_KEY = /^[0-9a-f]{64}\.(png|jpg|webp|dsp|pdf)$/;
