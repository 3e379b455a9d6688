// Hashing, signing and encryption at rest, on the Web Crypto API built into Deno.
const encoder = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(
    bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/** Compares two strings in time that depends only on their length. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function unb64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** AES-GCM with a key derived from APP_SECRET by HKDF, so the raw secret is never the cipher key. */
export class SecretBox {
  private constructor(private readonly key: CryptoKey) {}

  static async fromAppSecret(appSecret: string): Promise<SecretBox> {
    const material = await crypto.subtle.importKey("raw", encoder.encode(appSecret), "HKDF", false, [
      "deriveKey",
    ]);
    const key = await crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: encoder.encode("gateway-secret-box"),
        info: encoder.encode("v1"),
      },
      material,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    return new SecretBox(key);
  }

  async encrypt(plain: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv }, this.key, encoder.encode(plain)),
    );
    return `v1.${b64(iv)}.${b64(sealed)}`;
  }

  async decrypt(boxed: string): Promise<string> {
    const [version, iv, sealed] = boxed.split(".");
    if (version !== "v1" || !iv || !sealed) throw new Error("unknown secret box format");
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv) }, this.key, unb64(sealed));
    return new TextDecoder().decode(plain);
  }
}
