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
