// A real PostgreSQL server through postgres.js, with a connection pool.
import postgres from "postgres";
import type { Db, QueryOptions } from "./mod.ts";
import { runAfterCommit } from "./after_commit.ts";

type Sql = postgres.Sql | postgres.TransactionSql;

/** The server ended the session (shutdown, restart, crash recovery, not yet accepting): 57P01-57P03. */
const SESSION_ENDED = new Set(["57P01", "57P02", "57P03"]);
const ATTEMPTS = 3;

/**
 * Runs `attempt` again when the session had been ended by the server before it could run. postgres.js
 * keeps a connection's last error response when the server terminates it mid-statement and hands that
 * stale 57P01 to the first statement of the reconnected connection, without running it; a restart thus
 * poisons one statement per pooled connection. `mayRetry` says whether nothing of ours ran: at the root a
 * single statement that met a terminated session was aborted, a transaction only before its callback ran.
 */
async function retryEndedSession<T>(attempt: () => Promise<T>, mayRetry: () => boolean): Promise<T> {
  for (let n = 1;; n++) {
    try {
      return await attempt();
    } catch (err) {
      const code = (err as { code?: unknown })?.code;
      if (n >= ATTEMPTS || typeof code !== "string" || !SESSION_ENDED.has(code) || !mayRetry()) throw err;
    }
  }
}

function wrap(sql: Sql, root: postgres.Sql, pending: Array<() => void | Promise<void>> | null): Db {
  const atRoot = () => pending === null;
  const db: Db = {
    driver: "postgres",
    inTransaction: pending !== null,
    async query<T>(text: string, params: unknown[] = [], options: QueryOptions = {}) {
      const prepare = !options.oneShot;
      const rows = await retryEndedSession(
        () => sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare }),
        atRoot,
      );
      return rows as unknown as T[];
    },
    async exec(text: string) {
      await sql.unsafe(text);
    },
    async tx<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (pending) return await fn(db);
      const callbacks: Array<() => void | Promise<void>> = [];
      let entered = false;
      const result = await retryEndedSession(
        () =>
          root.begin((t) => {
            entered = true;
            return fn(wrap(t, root, callbacks));
          }) as Promise<T>,
        () => !entered,
      );
      await runAfterCommit(callbacks);
      return result;
    },
    afterCommit(fn) {
      if (pending) pending.push(fn);
      else void runAfterCommit([fn]);
    },
    async close() {
      if (!pending) await root.end({ timeout: 5 });
    },
  };
  return db;
}

/**
 * A database that goes away must make requests fail fast, never hang: a connection attempt gives up after
 * a few seconds, a statement after 30 s, and a session left idle inside a transaction (a process that
 * froze mid-way) is ended by the server so its locks go with it.
 */
const CONNECT_TIMEOUT_S = 3;
const STATEMENT_TIMEOUT_MS = 30_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/**
 * Seconds a connection waits before its next attempt after failures. postgres.js's default grows to 20 s
 * (shared by the whole pool), so a request queued behind it waited that long for its 503, and the pool
 * came back up to 20 s after the server did. A refused connection costs nothing: retry within half a second.
 */
const reconnectBackoff = (retries: number) => Math.min(0.05 * retries, 0.5);

let guardingOrphans = false;

/**
 * postgres.js's `begin()` races the transaction against its connection's close: when the server drops
 * the connection mid-transaction, the caller gets the close error, and the losing branch (the statement,
 * then its failed ROLLBACK) rejects again with nobody listening. Left unhandled, that rejection would stop
 * the whole process at a database restart. Only "database unavailable" errors are absorbed (and logged).
 */
function absorbOrphanedConnectionErrors(): void {
  if (guardingOrphans) return;
  guardingOrphans = true;
  const absorb = (event: Event, reason: unknown) => {
    if (!isDatabaseUnavailable(reason)) return;
    event.preventDefault();
    console.warn(JSON.stringify({
      time: new Date().toISOString(),
      level: "warn",
      msg: "database connection lost mid-transaction",
      error: String(reason),
    }));
  };
  globalThis.addEventListener("unhandledrejection", (event) => absorb(event, event.reason));
  globalThis.addEventListener("error", (event) => absorb(event, event.error));
}

export function openPostgres(url: string, max: number, schema?: string): Promise<Db> {
  absorbOrphanedConnectionErrors();
  const sql = postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: reconnectBackoff,
    connection: {
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      ...(schema ? { search_path: schema } : {}),
    },
  });
  return Promise.resolve(wrap(sql, sql, null));
}

/** Socket-level failures (node:net codes) and postgres.js's own connection errors. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * True when an error means "the database is not there right now" rather than "this statement is wrong":
 * a refused or dropped connection, the server shutting down or starting up (57P01-57P03), too many
 * connections (53300), a connection exception (class 08), or a statement cancelled by its timeout (57014).
 * The API answers these with 503 SERVICE_UNAVAILABLE and Retry-After; the caller may simply retry.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 3) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (CONNECTION_CODES.has(code) || code.startsWith("08")) return true;
    if (["57P01", "57P02", "57P03", "53300", "57014"].includes(code)) return true;
  }
  if (err instanceof Deno.errors.ConnectionRefused || err instanceof Deno.errors.ConnectionReset) return true;
  return isDatabaseUnavailable((err as { cause?: unknown }).cause, depth + 1);
}
