// The only module that reads the environment. Everything else receives a typed `Config`.
import { z } from "zod";

const boolFromEnv = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  APP_ENV: z.enum(["development", "production"]).default("development"),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  PUBLIC_URL: z.string().url().optional(),
  GIT_REV: z.string().min(1).default("dev"),
  KV_PATH: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  JOBS_ENABLED: boolFromEnv.default(true),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  DENO_DEPLOYMENT_ID: z.string().optional(),
});

export type Config = {
  port: number;
  dataDir: string;
  databaseUrl?: string;
  databasePoolSize: number;
  appEnv: "development" | "production";
  /** Undefined in development until main.ts supplies a persisted one. */
  appSecret?: string;
  adminToken?: string;
  publicUrl: string;
  gitRev: string;
  /** Undefined on Deno Deploy: the platform's KV is used. */
  kvPath?: string;
  logLevel: "debug" | "info" | "warn" | "error";
  jobsEnabled: boolean;
  webhookTimeoutMs: number;
  onDenoDeploy: boolean;
};

export class ConfigError extends Error {}

/** Parses a plain record of variables; pure so tests can build configs without touching Deno.env. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const e = parsed.data;
  const onDenoDeploy = e.DENO_DEPLOYMENT_ID !== undefined;
  if (e.APP_ENV === "production" && !e.APP_SECRET) {
    throw new ConfigError("Invalid configuration: APP_SECRET is required when APP_ENV=production");
  }
  if (e.APP_ENV === "production" && !e.ADMIN_TOKEN) {
    throw new ConfigError("Invalid configuration: ADMIN_TOKEN is required when APP_ENV=production");
  }
  if (onDenoDeploy && !e.DATABASE_URL) {
    throw new ConfigError("Invalid configuration: DATABASE_URL is required on Deno Deploy (no local disk)");
  }
  return {
    port: e.PORT,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    appEnv: e.APP_ENV,
    appSecret: e.APP_SECRET,
    adminToken: e.ADMIN_TOKEN,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    gitRev: e.GIT_REV,
    kvPath: onDenoDeploy ? undefined : (e.KV_PATH ?? `${e.DATA_DIR}/kv.sqlite3`),
    logLevel: e.LOG_LEVEL,
    jobsEnabled: e.JOBS_ENABLED,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    onDenoDeploy,
  };
}

export function readConfig(): Config {
  return parseConfig(Deno.env.toObject());
}
