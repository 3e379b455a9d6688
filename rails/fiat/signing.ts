// Signed provider callbacks: how a provider signs the outcome it POSTs to the gateway, how the gateway
// verifies and parses it, and the simulators' dispatcher that schedules and delivers those callbacks.
//
// Header: `X-Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
// Several `v1=` entries are accepted (secret rotation on the provider's side); one must match.
import { z } from "zod";
import {
  type CallbackAuthenticator,
  type CallbackParser,
  ProviderError,
  type ProviderOutcome,
} from "./provider.ts";

export const SIGNATURE_HEADER = "X-Provider-Signature";
export const DEFAULT_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The `X-Provider-Signature` value for `body` signed at `at`. */
export async function signCallback(secret: string, body: string, at: Date): Promise<string> {
  const t = Math.floor(at.getTime() / 1000);
  const key = await hmacKey(secret, "sign");
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${t}.${body}`));
  return `t=${t},v1=${toHex(new Uint8Array(mac))}`;
}

function headerValue(headers: Headers | Record<string, string | undefined>, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return null;
}

/**
 * Checks the signature of a callback's raw body and its age. Throws ProviderError("bad_callback") when the
 * header is missing or malformed, no signature matches (HMAC compared in constant time by Web Crypto's
 * verify), or the timestamp is more than `toleranceSeconds` away from `now` (either direction).
 */
export async function verifyCallback(
  secret: string,
  headers: Headers | Record<string, string | undefined>,
  rawBody: string,
  now: Date,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): Promise<void> {
  const header = headerValue(headers, SIGNATURE_HEADER);
  if (header === null || header.trim() === "") {
    throw new ProviderError("bad_callback", `missing ${SIGNATURE_HEADER} header`);
  }
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) throw new ProviderError("bad_callback", "malformed signature header");
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") {
      if (t !== undefined || !/^\d{1,12}$/.test(v)) {
        throw new ProviderError("bad_callback", "malformed signature header");
      }
      t = v;
    } else if (k === "v1") {
      if (!/^[0-9a-f]{64}$/i.test(v)) throw new ProviderError("bad_callback", "malformed signature header");
      signatures.push(v);
    } // other schemes are ignored
  }
  if (t === undefined || signatures.length === 0) {
    throw new ProviderError("bad_callback", "malformed signature header");
  }
  const key = await hmacKey(secret, "verify");
  const signed = encoder.encode(`${t}.${rawBody}`);
  let matched = false;
  for (const sig of signatures) {
    if (await crypto.subtle.verify("HMAC", key, fromHex(sig), signed)) matched = true;
  }
  if (!matched) throw new ProviderError("bad_callback", "signature does not match");
  const age = Math.floor(now.getTime() / 1000) - Number(t);
  if (Math.abs(age) > toleranceSeconds) {
    throw new ProviderError(
      "bad_callback",
      `signature timestamp outside the ${toleranceSeconds} s tolerance`,
    );
  }
}

/** The JSON body of every callback. `amount` is the XOF captured: the requested amount, or "0" on FAILED. */
export const CallbackBodySchema = z.strictObject({
  notificationId: z.string().min(1).max(200),
  providerRef: z.string().min(1).max(200),
  reference: z.string().min(1).max(200),
  status: z.enum(["SUCCEEDED", "FAILED"]),
  amount: z.string().regex(/^\d+$/),
  reason: z.string().min(1).max(100).optional(),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type CallbackBody = z.infer<typeof CallbackBodySchema>;

/** A CallbackAuthenticator: the signature and age only (verifyCallback). */
export function createCallbackAuthenticator(
  secret: string,
  now: () => number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): CallbackAuthenticator {
  return ({ headers, rawBody }) =>
    verifyCallback(secret, headers, rawBody, new Date(now()), toleranceSeconds);
}

/** A CallbackParser: verifies signature and age, then validates the body into a ProviderOutcome. */
export function createCallbackParser(
  secret: string,
  now: () => number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): CallbackParser {
  return async ({ headers, rawBody }): Promise<ProviderOutcome> => {
    await verifyCallback(secret, headers, rawBody, new Date(now()), toleranceSeconds);
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      throw new ProviderError("bad_callback", "callback body is not JSON");
    }
    const parsed = CallbackBodySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ProviderError(
        "bad_callback",
        `invalid callback body: ${issue.path.join(".")} ${issue.message}`,
      );
    }
    const b = parsed.data;
    return {
      notificationId: b.notificationId,
      providerRef: b.providerRef,
      reference: b.reference,
      status: b.status,
      amount: b.amount,
      ...(b.reason !== undefined ? { reason: b.reason } : {}),
      occurredAt: new Date(b.occurredAt),
    };
  };
}

export type Deliver = (url: string, body: string, headers: Record<string, string>) => Promise<number>;

/** Seconds between delivery attempts after a failed one (non-2xx or thrown): 5 attempts in all. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

type Task = { due: number; run: () => Promise<void> | void; timer?: ReturnType<typeof setTimeout> };

/**
 * Runs the simulators' delayed work (decisions, callback deliveries, retries) on the injected clock.
 * Each task has a due time `now() + delayMs`; a real timer runs it when the clock reaches it (re-arming
 * while a fake clock lags), and `flush()` runs every task already due without waiting. Everything is in
 * memory: a restart forgets the pending work. `stop()` cancels every timer and refuses new work.
 */
export class Dispatcher {
  #tasks = new Set<Task>();
  #running = new Set<Promise<void>>();
  #stopped = false;
  #seq = 0;

  constructor(
    private readonly opts: { secret: string; deliver: Deliver; now: () => number },
  ) {}

  get now(): number {
    return this.opts.now();
  }

  /** Runs `run` once, `delayMs` from now on the injected clock. Answers a cancel function. */
  schedule(delayMs: number, run: () => Promise<void> | void): () => void {
    if (this.#stopped) return () => {};
    const task: Task = { due: this.opts.now() + Math.max(0, delayMs), run };
    this.#tasks.add(task);
    this.#arm(task);
    return () => this.#cancel(task);
  }

  #arm(task: Task): void {
    const wait = Math.max(0, task.due - this.opts.now());
    task.timer = setTimeout(() => {
      task.timer = undefined;
      if (!this.#tasks.has(task)) return;
      if (this.opts.now() < task.due) return this.#arm(task); // a fake clock has not got there yet
      this.#start(task);
    }, wait);
  }

  #cancel(task: Task): void {
    if (task.timer !== undefined) clearTimeout(task.timer);
    task.timer = undefined;
    this.#tasks.delete(task);
  }

  #start(task: Task): void {
    this.#cancel(task);
    const p = (async () => {
      try {
        await task.run();
      } catch (err) {
        console.error("fiat simulator: scheduled task failed", err);
      }
    })();
    this.#running.add(p);
    p.finally(() => this.#running.delete(p));
  }

  /** A fresh notification id. */
  notificationId(): string {
    return `ntf_sim_${(++this.#seq).toString(36)}_${crypto.randomUUID().replaceAll("-", "")}`;
  }

  /**
   * Delivers a signed callback `copies` times in a row (the same body, so the same notificationId), each
   * copy retried on failure after RETRY_DELAYS_MS. Each attempt is signed at its own time.
   */
  async send(url: string, body: CallbackBody, copies = 1): Promise<void> {
    const raw = JSON.stringify(body);
    for (let i = 0; i < copies; i++) await this.#attempt(url, raw, 0);
  }

  /** send() of a body already serialized, of another shape (chargebacks): the same signing and retries. */
  async sendRaw(url: string, raw: string, copies = 1): Promise<void> {
    for (let i = 0; i < copies; i++) await this.#attempt(url, raw, 0);
  }

  async #attempt(url: string, raw: string, attempt: number): Promise<void> {
    if (this.#stopped) return;
    let ok = false;
    try {
      const signature = await signCallback(this.opts.secret, raw, new Date(this.opts.now()));
      const status = await this.opts.deliver(url, raw, {
        "content-type": "application/json",
        [SIGNATURE_HEADER]: signature,
      });
      ok = status >= 200 && status < 300;
    } catch (err) {
      console.warn("fiat simulator: callback delivery failed", err instanceof Error ? err.message : err);
    }
    if (!ok && attempt < RETRY_DELAYS_MS.length) {
      this.schedule(RETRY_DELAYS_MS[attempt], () => this.#attempt(url, raw, attempt + 1));
    }
  }

  /** Runs every task due by now (on the injected clock) and waits until nothing due is left running. */
  async flush(): Promise<void> {
    for (;;) {
      const now = this.opts.now();
      const due = [...this.#tasks].filter((t) => t.due <= now).sort((a, b) => a.due - b.due);
      for (const t of due) this.#start(t);
      if (this.#running.size === 0) return;
      await Promise.all([...this.#running]);
    }
  }

  /** Cancels every pending task and timer; later schedule() calls do nothing. */
  stop(): void {
    this.#stopped = true;
    for (const t of [...this.#tasks]) this.#cancel(t);
  }

  /** Pending tasks and running tasks, for tests. */
  get pending(): number {
    return this.#tasks.size + this.#running.size;
  }
}
