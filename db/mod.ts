// The driver seam: the same SQL runs on embedded PGlite and on PostgreSQL through postgres.js.

export type Row = Record<string, unknown>;

export interface Db {
  readonly driver: "pglite" | "postgres";
  /** True on the handle `tx` gives its callback: statements join that transaction. */
  readonly inTransaction: boolean;
  /** Runs one statement with $1..$n parameters and returns its rows. */
  query<T = Row>(text: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Runs `fn` in one transaction. Called on a transaction handle it joins the running transaction, so a
   * domain function can open its own transaction or take part in its caller's.
   */
  tx<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Work to do once the surrounding transaction has committed (enqueueing jobs). Runs now outside one. */
  afterCommit(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export type QueryOptions = {
  /**
   * Plan the statement with this call's values every time (an unnamed statement) rather than reuse a
   * prepared one: PostgreSQL switches a prepared statement to a generic plan after five runs, which cannot
   * see how selective a value is (a search term, a rare status). For statements whose best plan depends on
   * their values, at the cost of planning each time (a fraction of a millisecond).
   */
  oneShot?: boolean;
};

/** Postgres error code of a driver error, whichever driver threw it. */
export function pgErrorCode(err: unknown): string | undefined {
  if (err && typeof err === "object" && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}

export function pgConstraint(err: unknown): string | undefined {
  if (!err || typeof err !== "object") return undefined;
  const e = err as { constraint?: string; constraint_name?: string };
  return e.constraint ?? e.constraint_name;
}

export const PG_UNIQUE_VIOLATION = "23505";
export const PG_CHECK_VIOLATION = "23514";
