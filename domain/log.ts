// Structured logs, one JSON object per line. Never pass secrets or full API keys here.
export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(level: LogLevel, sink: (line: string) => void = console.log): Logger {
  const write = (at: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[at] < ORDER[level]) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields }));
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** Collects lines in memory (tests assert on what was logged). */
export function memoryLogger(level: LogLevel = "debug") {
  const lines: Array<Record<string, unknown>> = [];
  return { logger: createLogger(level, (l) => lines.push(JSON.parse(l))), lines };
}

/**
 * The operator's record of a money state change, one line per move of a pay-in (and of every later
 * money area: payouts, withdrawals...), written only once the surrounding transaction has committed so a
 * rolled-back move is never reported. `from` is null at creation. Fields are ids, mode and amounts: never
 * a key, a secret, customer details or free-form merchant data.
 */
export function logStateChange(
  deps: { db: { afterCommit(fn: () => void): void }; log: Logger },
  entity: string,
  fields: { from: string | null; to: string } & Record<string, unknown>,
): void {
  const msg = fields.from === null ? `${entity} created` : `${entity} state changed`;
  deps.db.afterCommit(() => deps.log.info(msg, fields));
}
