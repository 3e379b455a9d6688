// The only module that reads the environment. Everything else receives a typed `Config`.
import { z } from "zod";
import { Decimal } from "decimal.js";

/** One TRON node of TRON_API_URL or TRON_SOLIDITY_URL: `url`, `url|key`, `url|key|rps` or `url||rps`. */
const TRON_NODE_ENTRY = /^https?:\/\/[^\s|,]+(\|[^\s|,]*(\|\d+(\.\d+)?)?)?$/;

const boolFromEnv = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/** Every variable the gateway reads; README's configuration table must list each (tests/unit/config_test.ts). */
export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  // Production unless told otherwise: a forgotten variable must never mount the devnet or the simulators.
  APP_ENV: z.enum(["development", "production"]).default("production"),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  PUBLIC_URL: z.string().url().optional(),
  GIT_REV: z.string().min(1).default("dev"),
  KV_PATH: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  JOBS_ENABLED: boolFromEnv.default(true),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_WORKERS: z.coerce.number().int().min(1).max(1000).default(128),
  TRON_NETWORK: z.enum(["devnet", "nile", "mainnet"]).optional(),
  // One node, or several separated by commas, each optionally `url|api-key` (a node pool, rails/tron/node_pool.ts).
  // Each entry may also give the node's own request rate: `url|api-key|rps` or `url||rps` (issue 24).
  TRON_API_URL: z.string().refine(
    (v) => v.split(",").every((entry) => TRON_NODE_ENTRY.test(entry.trim())),
    "must be http(s) URLs separated by commas, each optionally followed by |api-key and |requests-per-second",
  ).optional(),
  TRON_SOLIDITY_URL: z.string().refine(
    (v) => TRON_NODE_ENTRY.test(v.trim()),
    "must be one http(s) URL, optionally followed by |api-key and |requests-per-second",
  ).optional(),
  TRON_NODE_RPS: z.coerce.number().min(0.1).max(10_000).default(15),
  TRON_NODE_BURST: z.coerce.number().int().min(1).max(10_000).default(30),
  TRON_NODE_MAX_LAG_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(10),
  TRON_NODE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  // Where each node's request budget is kept: this process alone, or PostgreSQL for every host (issue 24).
  TRON_NODE_BUDGET_STORE: z.enum(["auto", "local", "postgres"]).default("auto"),
  TRON_API_KEY: z.string().min(1).optional(),
  TRON_USDT_CONTRACT: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, "must be a base58 TRON address")
    .optional(),
  TRON_MNEMONIC: z.string().min(1).optional(),
  DEVNET_BLOCK_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  PAYIN_CONFIRMATIONS: z.coerce.number().int().min(1).max(100).default(5),
  DEPOSIT_CONFIRMATIONS: z.coerce.number().int().min(1).max(200).default(20),
  PAYOUT_CONFIRMATIONS: z.coerce.number().int().min(1).max(200).default(20),
  AML_BLOCKLIST_PATH: z.string().min(1).optional(),
  SWEEP_MIN_USDT: z.string().regex(/^\d+(\.\d{1,6})?$/, "must be a USDT amount").default("10"),
  OUTBOUND_WAIT_ALARM_SECONDS: z.coerce.number().int().min(60).max(604_800).default(900),
  FIAT_PROVIDER: z.enum(["simulator", "cinetpay", "paydunya"]).default("simulator"),
  KYB_MAX_DOCUMENT_BYTES: z.coerce.number().int().min(65_536).max(26_214_400).default(8_388_608),
  PLAN_MONEY_OUT_DAILY_USDT: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("100000"),
  PLAN_MONEY_OUT_MONTHLY_USDT: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("1000000"),
  PLAN_CONVERSIONS_DAILY_COUNT: z.coerce.number().int().min(0).max(1_000_000).default(200),
  PLAN_CONVERSION_USDT_DAILY: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("100000"),
  PLAN_MONEY_OUT_DAILY_XOF: z.string().regex(/^[0-9]{1,15}$/).default("100000000"),
  PLAN_MONEY_OUT_MONTHLY_XOF: z.string().regex(/^[0-9]{1,15}$/).default("1000000000"),
  PLAN_PAYIN_DAILY_USDT: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("10000000"),
  PLAN_PAYIN_MONTHLY_USDT: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("100000000"),
  PLAN_PAYIN_DAILY_XOF: z.string().regex(/^[0-9]{1,15}$/).default("10000000000"),
  PLAN_PAYIN_MONTHLY_XOF: z.string().regex(/^[0-9]{1,15}$/).default("100000000000"),
  PLAN_TRANSACTION_MAX_USDT: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("10000000"),
  PLAN_TRANSACTION_MAX_XOF: z.string().regex(/^[0-9]{1,15}$/).default("10000000000"),
  PLAN_BALANCE_CAP_USDT: z.string().regex(/^[0-9]{1,15}(\.[0-9]{1,6})?$/).default("1000000000000"),
  PLAN_BALANCE_CAP_XOF: z.string().regex(/^[0-9]{1,15}$/).default("100000000000000"),
  PLAN_WEBHOOK_ENDPOINTS: z.coerce.number().int().min(1).max(1000).default(20),
  PROVIDER_CALLBACK_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SIMULATOR_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1500),
  DENO_DEPLOYMENT_ID: z.string().optional(),
  ADDRESS_POOL_SIZE: z.coerce.number().int().min(0).max(100_000).default(200),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(10_000).default(5000),
  RATE_LIMIT_STORE: z.enum(["auto", "kv", "postgres"]).default("auto"),
  TRUSTED_PROXIES: z.string().regex(/^[0-9a-fA-F.:/,\s]*$/, "must be comma-separated CIDR ranges").default(
    "",
  ),
  MAX_API_KEYS: z.coerce.number().int().min(4).max(1000).default(20),
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(20),
  PUBLIC_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(60),
  CHECKOUT_HOLD_MINUTES: z.coerce.number().int().min(1).max(120).default(10),
  FX_SOURCE: z.enum(["fixed", "feed"]).optional(),
  FX_FIXED_USDT_EUR: z.string().regex(/^\d{1,9}(\.\d{1,18})?$/, "must be a decimal rate").default("0.92"),
  FX_FEED_URL: z.string().url().optional(),
  FX_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(120),
  MAIL_TRANSPORT: z.enum(["outbox", "smtp"]).default("outbox"),
  SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, "must be an smtp:// or smtps:// URL").optional(),
  MAIL_FROM: z.string().min(3).max(200).default("Paiements <no-reply@localhost>"),
  SUBSCRIPTION_GRACE_HOURS: z.coerce.number().int().min(1).max(720).default(72),
  STORAGE_BACKEND: z.enum(["postgres", "directory", "s3"]).default("postgres"),
  STORAGE_DIR: z.string().optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  // No default here: 86400 (the specification's 24 hours) in production, 0 in development (see parseConfig).
  FIAT_DESTINATION_COOLDOWN_SECONDS: z.coerce.number().int().min(0).max(30 * 86_400).optional(),
  // Operator accounts (issue 22). Production refuses a scrypt cost below the default.
  OPERATOR_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(20).default(15),
  OPERATOR_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  OPERATOR_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(168).default(12),
  OPERATOR_SESSION_BIND_ADDRESS: boolFromEnv.default(false),
  FOUR_EYES_ABOVE_USDT: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, "must be a USDT amount").default("50000"),
  FOUR_EYES_ABOVE_XOF: z.string().regex(/^\d{1,15}$/, "must be a whole XOF amount").optional(),
  // Live aggregators (issue 26): FIAT_PROVIDER=cinetpay or paydunya, with that aggregator's credentials.
  CINETPAY_API_KEY: z.string().min(1).max(500).optional(),
  CINETPAY_SITE_ID: z.string().regex(/^[0-9A-Za-z_-]{1,50}$/, "must be the site_id").optional(),
  CINETPAY_SECRET_KEY: z.string().min(1).max(500).optional(),
  CINETPAY_TRANSFER_PASSWORD: z.string().min(1).max(500).optional(),
  CINETPAY_API_URL: z.string().url().default("https://api-checkout.cinetpay.com"),
  CINETPAY_TRANSFER_URL: z.string().url().default("https://client.cinetpay.com"),
  PAYDUNYA_MASTER_KEY: z.string().min(1).max(500).optional(),
  PAYDUNYA_PRIVATE_KEY: z.string().min(1).max(500).optional(),
  PAYDUNYA_TOKEN: z.string().min(1).max(500).optional(),
  PAYDUNYA_API_URL: z.string().url().default("https://app.paydunya.com/api/v1"),
  PAYDUNYA_STORE_NAME: z.string().min(1).max(100).default("Paiements"),
  PAYDUNYA_WITHDRAW_MODES: z.string().regex(
    /^(OPERATOR_[AB]_BF=[a-z0-9-]{1,60})(,OPERATOR_[AB]_BF=[a-z0-9-]{1,60})*$/,
    "must be OPERATOR_A_BF=<withdraw_mode>,OPERATOR_B_BF=<withdraw_mode>",
  ).optional(),
  AGGREGATOR_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(15_000),
  // Refunds (issue 23): how long after its confirmation a pay-in may still be refunded.
  REFUND_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(180),
  // Disputes (issue 23): working hours the merchant has to answer, and what its evidence may weigh.
  DISPUTE_EVIDENCE_HOURS_LOCAL: z.coerce.number().int().min(1).max(720).default(10),
  DISPUTE_EVIDENCE_HOURS_INTERNATIONAL: z.coerce.number().int().min(1).max(720).default(30),
  DISPUTE_EVIDENCE_MAX_FILE_BYTES: z.coerce.number().int().min(1024).max(900_000).default(512 * 1024),
});

/** The settings each live aggregator cannot run without: the gateway refuses to start when one is missing. */
const AGGREGATOR_REQUIRED = {
  cinetpay: ["CINETPAY_API_KEY", "CINETPAY_SITE_ID", "CINETPAY_SECRET_KEY", "CINETPAY_TRANSFER_PASSWORD"],
  paydunya: ["PAYDUNYA_MASTER_KEY", "PAYDUNYA_PRIVATE_KEY", "PAYDUNYA_TOKEN"],
} as const;

/** OWASP's scrypt setting for passwords (N=2^15, r=8, p=3): production never hashes with less. */
export const SPEC_OPERATOR_SCRYPT_LOG_N = 15;
/** The XOF/EUR peg (also in rails/fx): the default XOF four-eyes threshold is derived through it. */
const XOF_PER_EUR = "655.957";

/** Specification, Part 2 limits: "whitelist and fiat destination cooldown: 24 hours". */
export const SPEC_FIAT_DESTINATION_COOLDOWN_SECONDS = 86_400;

/**
 * USDT contract and public node per network; the devnet's node is mounted on the gateway itself. What
 * proves a node is on nile or mainnet (its genesis block) is in rails/tron/networks.ts; confirmations are
 * not per network: PAYIN_, DEPOSIT_ and PAYOUT_CONFIRMATIONS apply to nile as to mainnet.
 */
export const TRON_PRESETS = {
  devnet: { usdtContract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", apiUrl: undefined },
  nile: { usdtContract: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", apiUrl: "https://nile.trongrid.io" },
  mainnet: { usdtContract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", apiUrl: "https://api.trongrid.io" },
} as const;

export type TronNodeConfig = { url: string; apiKey?: string; rps?: number };

/** `url|key|rps` as TRON_NODE_ENTRY reads it; the key falls back to TRON_API_KEY. */
function tronNode(entry: string, defaultKey: string | undefined): TronNodeConfig {
  const [url, key, rps] = entry.trim().split("|");
  const node: TronNodeConfig = { url: url.replace(/\/+$/, ""), apiKey: key || defaultKey };
  if (rps) node.rps = Number(rps);
  return node;
}

export type TronConfig = {
  network: "devnet" | "nile" | "mainnet";
  /** The devnet runs inside this process, mounted at /devnet (devnet network and no TRON_API_URL). */
  embeddedDevnet: boolean;
  /** Base URL of the (first) full node's HTTP API (`/wallet/...` is appended). */
  apiUrl: string;
  apiKey?: string;
  /** Every node of TRON_API_URL with its key; more than one makes a pool (rails/tron/node_pool.ts). */
  nodes: TronNodeConfig[];
  /** A separate solidity node (TRON_SOLIDITY_URL) for confirmed reads; unset: the full nodes answer them. */
  solidityNode?: TronNodeConfig;
  /** Each node's request budget (token bucket) unless its entry gives its own rate. */
  nodeRps: number;
  nodeBurst: number;
  /** A node further behind the best head than this is benched. */
  nodeMaxLagBlocks: number;
  /** One node's answer time before the pool asks the next. */
  nodeTimeoutMs: number;
  /**
   * Where the node budgets are kept: `local` (a token bucket per process), `postgres` (leased by every host
   * on the database: db/node_budget.ts), `auto` (`postgres` with DATABASE_URL, else `local`).
   */
  nodeBudgetStore: "auto" | "local" | "postgres";
  usdtContract: string;
  /** Undefined in development until the runtime generates and stores one. */
  mnemonic?: string;
  devnetBlockMs: number;
  payinConfirmations: number;
  depositConfirmations: number;
  /** Confirmations before a payout or withdrawal is CONFIRMED (and its reservation settled). */
  payoutConfirmations: number;
};

/** Plan limits as decimal strings (USDT amounts, or counts). */
export type PlanDefaults = {
  moneyOutDailyUsdt: string;
  moneyOutMonthlyUsdt: string;
  conversionsDailyCount: string;
  conversionsDailyVolumeUsdt: string;
  moneyOutDailyXof: string;
  moneyOutMonthlyXof: string;
  payinDailyUsdt: string;
  payinMonthlyUsdt: string;
  payinDailyXof: string;
  payinMonthlyXof: string;
  transactionMaxUsdt: string;
  transactionMaxXof: string;
  balanceCapUsdt: string;
  balanceCapXof: string;
  webhookEndpoints: string;
};

/** The defaults of hand-built configurations (tests); parseConfig reads PLAN_* with the same values. */
export const PLAN_DEFAULTS: PlanDefaults = {
  moneyOutDailyUsdt: "100000",
  moneyOutMonthlyUsdt: "1000000",
  conversionsDailyCount: "200",
  conversionsDailyVolumeUsdt: "100000",
  moneyOutDailyXof: "100000000",
  moneyOutMonthlyXof: "1000000000",
  payinDailyUsdt: "10000000",
  payinMonthlyUsdt: "100000000",
  payinDailyXof: "10000000000",
  payinMonthlyXof: "100000000000",
  transactionMaxUsdt: "10000000",
  transactionMaxXof: "10000000000",
  balanceCapUsdt: "1000000000000",
  balanceCapXof: "100000000000000",
  webhookEndpoints: "20",
};

export type Config = {
  port: number;
  dataDir: string;
  databaseUrl?: string;
  databasePoolSize: number;
  appEnv: "development" | "production";
  /** Undefined in development until the runtime supplies the one persisted in DATA_DIR. */
  appSecret?: string;
  /** Undefined in development until the runtime supplies the one persisted in DATA_DIR. */
  adminToken?: string;
  publicUrl: string;
  gitRev: string;
  /** Undefined on Deno Deploy: the platform's KV is used. */
  kvPath?: string;
  logLevel: "debug" | "info" | "warn" | "error";
  jobsEnabled: boolean;
  webhookTimeoutMs: number;
  /** Webhook attempts in flight at once in this process (the pump's slots). */
  webhookWorkers: number;
  onDenoDeploy: boolean;
  tron: TronConfig;
  fiat: FiatConfig;
  /** File of blocked destination addresses (one per line, # comments); unset: no list. */
  amlBlocklistPath?: string;
  /** A deposit address is swept once it holds at least this much credited USDT (sooner when a payout waits). */
  sweepMinUsdt: string;
  /** An accepted payout or withdrawal waiting to be sent longer than this is an alarm (metrics, log). */
  outboundWaitAlarmSeconds: number;
  /** Largest KYB document (PDF or image) a merchant may upload. */
  kybMaxDocumentBytes: number;
  /** Plan limits every merchant has unless an operator sets its own (domain/limits/plan.ts). */
  planDefaults?: PlanDefaults;
  /** Free deposit addresses kept derived ahead per mode; a refill starts when half are used. */
  addressPoolSize: number;
  /** How long a key lookup is reused in this process (0: never); revocation elsewhere waits this long. */
  authCacheTtlMs: number;
  /** Where rate limits count: KV, PostgreSQL (hosts sharing a database), or auto (PostgreSQL with DATABASE_URL). */
  rateLimitStore: "auto" | "kv" | "postgres";
  /** Proxies whose X-Forwarded-For names the client (CIDR ranges); empty: the socket's peer is the client. */
  trustedProxies: string[];
  /** Unrevoked, unexpired API keys a merchant may hold (the four first keys count); an operator may change it per merchant. */
  maxApiKeys: number;
  /** Failed authentications per client address per minute before that address gets 429. */
  authFailureLimit: number;
  /** Requests per client address per minute on each public paylink route (checkout, apply-promo, rate-lock). */
  publicRateLimit: number;
  /** Minutes an unpaid paylink order holds its stock and promo uses (default 10); optional for hand-built configs. */
  checkoutHoldMinutes?: number;
  fx: FxConfig;
  /** Where uploaded images live (rails/storage); optional so hand-built configs default to Postgres. */
  storage?: StorageConfig;
  /** The mail seam (rails/mail); optional so hand-built configs default to the development outbox. */
  mail?: MailConfig;
  /** Hours a renewal stays payable before it is `subscription.failed` (default 72). */
  subscriptionGraceHours?: number;
  /** Days after a pay-in's confirmation during which it may be refunded (REFUND_WINDOW_EXPIRED after). */
  refundWindowDays?: number;
  operators: OperatorConfig;
  /** Disputes (issue 23); optional so hand-built configs take the defaults (DISPUTE_DEFAULTS). */
  disputes?: DisputeConfig;
};

/** Evidence deadlines in working hours (domain/disputes/working_hours.ts) and the evidence file cap. */
export type DisputeConfig = {
  evidenceHoursLocal: number;
  evidenceHoursInternational: number;
  maxFileBytes: number;
};
export const DISPUTE_DEFAULTS: DisputeConfig = {
  evidenceHoursLocal: 10,
  evidenceHoursInternational: 30,
  maxFileBytes: 512 * 1024,
};

/** Operator accounts, sessions and four eyes (issue 22). */
export type OperatorConfig = {
  /** log2 of scrypt's N for new passwords (15 by default; development may lower it, tests do). */
  scryptLogN: number;
  /** A session unused this long has ended. */
  sessionIdleMinutes: number;
  /** A session ends this long after sign-in, however busy. */
  sessionMaxHours: number;
  /** A session's cookie is refused from any other client address than the one that signed in. */
  sessionBindAddress: boolean;
  /** Approving a payout or withdrawal of more than this needs two different reviewers (decimal strings). */
  fourEyesAbove: { USDT_TRC20: string; XOF: string };
};

/** Development keeps messages in the outbox; production sends them by SMTP. */
export type MailConfig = { transport: "outbox" | "smtp"; smtpUrl?: string; from: string };

export type StorageConfig = {
  backend: "postgres" | "directory" | "s3";
  /** `directory`: the folder (default DATA_DIR/objects). */
  dir: string;
  s3?: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
};

/** The rate source (rails/fx): where USDT/EUR comes from and how old it may be. */
export type FxConfig = {
  /** `fixed` (development default): `fixedUsdtEur` at every call. `feed` (production default): `feedUrl`. */
  source: "fixed" | "feed";
  /** USDT priced in EUR for the fixed source (and the tests' simulated feed's starting rate). */
  fixedUsdtEur: string;
  /** JSON `{"rate","asOf"}` feed; with `source: feed` and no URL there is no rate (RATE_UNAVAILABLE). */
  feedUrl?: string;
  /** A rate observed longer ago than this is RATE_STALE. */
  maxAgeSeconds: number;
};

export type FiatConfig = {
  /** Card acquirer and mobile money aggregator of live money (sandbox always uses the simulators). */
  provider: "simulator" | "cinetpay" | "paydunya";
  /** CinetPay's credentials and hosts (FIAT_PROVIDER=cinetpay; checked present at start). */
  cinetpay?: {
    apiKey: string;
    siteId: string;
    secretKey: string;
    transferPassword: string;
    apiUrl: string;
    transferUrl: string;
  };
  /** PayDunya's keys and host (FIAT_PROVIDER=paydunya; checked present at start). */
  paydunya?: {
    masterKey: string;
    privateKey: string;
    token: string;
    apiUrl: string;
    storeName: string;
    withdrawModes: Partial<Record<"OPERATOR_A_BF" | "OPERATOR_B_BF", string>>;
  };
  /** Deadline of one call to a live aggregator. */
  aggregatorTimeoutMs: number;
  /** Shared secret of provider callbacks; undefined until the runtime derives one from APP_SECRET. */
  callbackSecret?: string;
  /** How long the simulators wait before answering asynchronously. */
  simulatorDelayMs: number;
  /**
   * Seconds between registering (or changing) a fiat destination and its first use: the specification's
   * 86400 in production (never less), 0 by default in development so a fresh server can withdraw at once.
   */
  destinationCooldownSeconds: number;
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
  if (onDenoDeploy && !e.APP_SECRET) {
    throw new ConfigError(
      "Invalid configuration: APP_SECRET is required on Deno Deploy (no local disk to keep a generated one)",
    );
  }
  if (onDenoDeploy && !e.DATABASE_URL) {
    throw new ConfigError("Invalid configuration: DATABASE_URL is required on Deno Deploy (no local disk)");
  }
  const network = e.TRON_NETWORK ?? (e.APP_ENV === "production" ? "mainnet" : "devnet");
  const nodes = (e.TRON_API_URL ?? TRON_PRESETS[network].apiUrl ?? `http://127.0.0.1:${e.PORT}/devnet`)
    .split(",").map((entry) => entry.trim()).filter(Boolean).map((entry) => tronNode(entry, e.TRON_API_KEY));
  if (network === "devnet" && e.APP_ENV === "production") {
    throw new ConfigError("Invalid configuration: TRON_NETWORK=devnet is for development only");
  }
  if (e.MAIL_TRANSPORT === "smtp" && !e.SMTP_URL) {
    throw new ConfigError("Invalid configuration: SMTP_URL is required when MAIL_TRANSPORT=smtp");
  }
  if (e.APP_ENV === "production" && !e.TRON_MNEMONIC) {
    throw new ConfigError("Invalid configuration: TRON_MNEMONIC is required when APP_ENV=production");
  }
  if (
    e.APP_ENV === "production" && e.FIAT_DESTINATION_COOLDOWN_SECONDS !== undefined &&
    e.FIAT_DESTINATION_COOLDOWN_SECONDS < SPEC_FIAT_DESTINATION_COOLDOWN_SECONDS
  ) {
    throw new ConfigError(
      `Invalid configuration: FIAT_DESTINATION_COOLDOWN_SECONDS below ${SPEC_FIAT_DESTINATION_COOLDOWN_SECONDS} is for development only`,
    );
  }
  if (e.APP_ENV === "production" && e.OPERATOR_SCRYPT_LOG_N < SPEC_OPERATOR_SCRYPT_LOG_N) {
    throw new ConfigError(
      `Invalid configuration: OPERATOR_SCRYPT_LOG_N below ${SPEC_OPERATOR_SCRYPT_LOG_N} is for development only`,
    );
  }
  if (e.FIAT_PROVIDER !== "simulator") {
    const missing = AGGREGATOR_REQUIRED[e.FIAT_PROVIDER].filter((name) => !e[name]);
    if (missing.length > 0) {
      throw new ConfigError(
        `Invalid configuration: FIAT_PROVIDER=${e.FIAT_PROVIDER} needs ${missing.join(", ")}`,
      );
    }
  }
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    appEnv: e.APP_ENV,
    appSecret: e.APP_SECRET,
    adminToken: e.ADMIN_TOKEN,
    publicUrl,
    gitRev: e.GIT_REV,
    kvPath: onDenoDeploy ? undefined : (e.KV_PATH ?? `${e.DATA_DIR}/kv.sqlite3`),
    logLevel: e.LOG_LEVEL,
    jobsEnabled: e.JOBS_ENABLED,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookWorkers: e.WEBHOOK_WORKERS,
    onDenoDeploy,
    tron: {
      network,
      embeddedDevnet: network === "devnet" && !e.TRON_API_URL,
      apiUrl: nodes[0].url,
      apiKey: nodes[0].apiKey,
      nodes,
      solidityNode: e.TRON_SOLIDITY_URL ? tronNode(e.TRON_SOLIDITY_URL, e.TRON_API_KEY) : undefined,
      nodeRps: e.TRON_NODE_RPS,
      nodeBurst: e.TRON_NODE_BURST,
      nodeMaxLagBlocks: e.TRON_NODE_MAX_LAG_BLOCKS,
      nodeTimeoutMs: e.TRON_NODE_TIMEOUT_MS,
      nodeBudgetStore: e.TRON_NODE_BUDGET_STORE,
      usdtContract: e.TRON_USDT_CONTRACT ?? TRON_PRESETS[network].usdtContract,
      mnemonic: e.TRON_MNEMONIC,
      devnetBlockMs: e.DEVNET_BLOCK_MS,
      payinConfirmations: e.PAYIN_CONFIRMATIONS,
      depositConfirmations: e.DEPOSIT_CONFIRMATIONS,
      payoutConfirmations: e.PAYOUT_CONFIRMATIONS,
    },
    fiat: {
      provider: e.FIAT_PROVIDER,
      callbackSecret: e.PROVIDER_CALLBACK_SECRET,
      simulatorDelayMs: e.SIMULATOR_DELAY_MS,
      aggregatorTimeoutMs: e.AGGREGATOR_TIMEOUT_MS,
      ...(e.FIAT_PROVIDER === "cinetpay"
        ? {
          cinetpay: {
            apiKey: e.CINETPAY_API_KEY!,
            siteId: e.CINETPAY_SITE_ID!,
            secretKey: e.CINETPAY_SECRET_KEY!,
            transferPassword: e.CINETPAY_TRANSFER_PASSWORD!,
            apiUrl: e.CINETPAY_API_URL.replace(/\/+$/, ""),
            transferUrl: e.CINETPAY_TRANSFER_URL.replace(/\/+$/, ""),
          },
        }
        : {}),
      ...(e.FIAT_PROVIDER === "paydunya"
        ? {
          paydunya: {
            masterKey: e.PAYDUNYA_MASTER_KEY!,
            privateKey: e.PAYDUNYA_PRIVATE_KEY!,
            token: e.PAYDUNYA_TOKEN!,
            apiUrl: e.PAYDUNYA_API_URL.replace(/\/+$/, ""),
            storeName: e.PAYDUNYA_STORE_NAME,
            withdrawModes: Object.fromEntries(
              (e.PAYDUNYA_WITHDRAW_MODES ?? "").split(",").filter(Boolean).map((pair) => pair.split("=")),
            ),
          },
        }
        : {}),
      destinationCooldownSeconds: e.FIAT_DESTINATION_COOLDOWN_SECONDS ??
        (e.APP_ENV === "production" ? SPEC_FIAT_DESTINATION_COOLDOWN_SECONDS : 0),
    },
    amlBlocklistPath: e.AML_BLOCKLIST_PATH,
    sweepMinUsdt: e.SWEEP_MIN_USDT,
    outboundWaitAlarmSeconds: e.OUTBOUND_WAIT_ALARM_SECONDS,
    kybMaxDocumentBytes: e.KYB_MAX_DOCUMENT_BYTES,
    planDefaults: {
      moneyOutDailyUsdt: e.PLAN_MONEY_OUT_DAILY_USDT,
      moneyOutMonthlyUsdt: e.PLAN_MONEY_OUT_MONTHLY_USDT,
      conversionsDailyCount: String(e.PLAN_CONVERSIONS_DAILY_COUNT),
      conversionsDailyVolumeUsdt: e.PLAN_CONVERSION_USDT_DAILY,
      moneyOutDailyXof: e.PLAN_MONEY_OUT_DAILY_XOF,
      moneyOutMonthlyXof: e.PLAN_MONEY_OUT_MONTHLY_XOF,
      payinDailyUsdt: e.PLAN_PAYIN_DAILY_USDT,
      payinMonthlyUsdt: e.PLAN_PAYIN_MONTHLY_USDT,
      payinDailyXof: e.PLAN_PAYIN_DAILY_XOF,
      payinMonthlyXof: e.PLAN_PAYIN_MONTHLY_XOF,
      transactionMaxUsdt: e.PLAN_TRANSACTION_MAX_USDT,
      transactionMaxXof: e.PLAN_TRANSACTION_MAX_XOF,
      balanceCapUsdt: e.PLAN_BALANCE_CAP_USDT,
      balanceCapXof: e.PLAN_BALANCE_CAP_XOF,
      webhookEndpoints: String(e.PLAN_WEBHOOK_ENDPOINTS),
    },
    addressPoolSize: e.ADDRESS_POOL_SIZE,
    authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
    rateLimitStore: e.RATE_LIMIT_STORE,
    trustedProxies: e.TRUSTED_PROXIES.split(",").map((s) => s.trim()).filter(Boolean),
    maxApiKeys: e.MAX_API_KEYS,
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    publicRateLimit: e.PUBLIC_RATE_LIMIT,
    checkoutHoldMinutes: e.CHECKOUT_HOLD_MINUTES,
    fx: {
      source: e.FX_SOURCE ?? (e.APP_ENV === "production" ? "feed" : "fixed"),
      fixedUsdtEur: e.FX_FIXED_USDT_EUR,
      feedUrl: e.FX_FEED_URL,
      maxAgeSeconds: e.FX_MAX_AGE_SECONDS,
    },
    mail: { transport: e.MAIL_TRANSPORT, smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    subscriptionGraceHours: e.SUBSCRIPTION_GRACE_HOURS,
    refundWindowDays: e.REFUND_WINDOW_DAYS,
    storage: storageConfig(e),
    disputes: {
      evidenceHoursLocal: e.DISPUTE_EVIDENCE_HOURS_LOCAL,
      evidenceHoursInternational: e.DISPUTE_EVIDENCE_HOURS_INTERNATIONAL,
      maxFileBytes: e.DISPUTE_EVIDENCE_MAX_FILE_BYTES,
    },
    operators: {
      scryptLogN: e.OPERATOR_SCRYPT_LOG_N,
      sessionIdleMinutes: e.OPERATOR_SESSION_IDLE_MINUTES,
      sessionMaxHours: e.OPERATOR_SESSION_MAX_HOURS,
      sessionBindAddress: e.OPERATOR_SESSION_BIND_ADDRESS,
      fourEyesAbove: { USDT_TRC20: e.FOUR_EYES_ABOVE_USDT, XOF: e.FOUR_EYES_ABOVE_XOF ?? xofThreshold(e) },
    },
  };
}

/**
 * The XOF equivalent of the USDT four-eyes threshold at the fixed rate (FX_FIXED_USDT_EUR through the
 * XOF/EUR peg), rounded down: 50,000 USDT at 0.92 EUR is 30,174,022 XOF. A moving rate would move the
 * threshold under an item waiting for review, so it is fixed when the process starts.
 */
function xofThreshold(e: z.infer<typeof EnvSchema>): string {
  const xof = new Decimal(e.FOUR_EYES_ABOVE_USDT).times(e.FX_FIXED_USDT_EUR).times(XOF_PER_EUR);
  return xof.toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed(0);
}

function storageConfig(e: z.infer<typeof EnvSchema>): StorageConfig {
  const dir = e.STORAGE_DIR ?? `${e.DATA_DIR}/objects`;
  if (e.STORAGE_BACKEND !== "s3") return { backend: e.STORAGE_BACKEND, dir };
  if (!e.S3_ENDPOINT || !e.S3_BUCKET || !e.S3_ACCESS_KEY_ID || !e.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError(
      "Invalid configuration: STORAGE_BACKEND=s3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY",
    );
  }
  return {
    backend: "s3",
    dir,
    s3: {
      endpoint: e.S3_ENDPOINT.replace(/\/+$/, ""),
      bucket: e.S3_BUCKET,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    },
  };
}

export function readConfig(): Config {
  return parseConfig(Deno.env.toObject());
}

/**
 * The database settings alone, whatever the profile: tests and benches pick their server this way without
 * needing production's secrets (production is the default).
 */
export function readDatabaseConfig(): Pick<Config, "databaseUrl" | "databasePoolSize"> {
  const c = parseConfig({ ...Deno.env.toObject(), APP_ENV: "development", DENO_DEPLOYMENT_ID: undefined });
  return { databaseUrl: c.databaseUrl, databasePoolSize: c.databasePoolSize };
}
