// Reading the validating proxy's answers: which are Prism's own (a request or answer off the document,
// or missing credentials) and which the gateway's, and which of those are findings: a 5xx, a violation,
// or a refusal of a request Prism judged valid for a rule about its shape.

export type Credential = "test" | "live" | "operator" | "none" | "unknown";

export type Exchange = {
  operation: string;
  credential: Credential;
  url: string;
  status: number;
  /** The gateway's error code, or Prism's problem type (after the `#`). */
  code?: string;
  /** The gateway's error message (it names the field a VALIDATION_ERROR is about). */
  message?: string;
  fromPrism: boolean;
  /** Sent straight to the gateway (an image upload Prism cannot carry); its answer checked by ajv. */
  direct?: boolean;
  violations: string[];
};

export type FindingKind =
  | "5xx"
  | "request-violation"
  | "response-violation"
  | "shape-refusal"
  | "unlisted-code";
export type Finding = { kind: FindingKind; key: string; exchange: Exchange };

const PRISM_ERRORS = "https://stoplight.io/prism/errors#";

/**
 * Codes meaning "the request's shape is wrong". A request Prism let through should never get one: the
 * document would be hiding a rule. Codes about state (balance, whitelist, mode, unknown id, an empty
 * batch: BAD_REQUEST) are not here.
 */
export function isShapeCode(code: string | undefined): boolean {
  if (!code) return false;
  if (
    ["VALIDATION_ERROR", "IDEMPOTENCY_KEY_INVALID", "CUSTOMER_PHONE_REQUIRED"].includes(code)
  ) {
    return true;
  }
  const stateful = [
    "INVALID_STATE",
    "INVALID_TRANSACTION_STATUS",
    "INVALID_API_KEY",
    "INVALID_WEBHOOK_SIGNATURE",
  ];
  return (/^INVALID_/.test(code) && !stateful.includes(code)) || /^MISSING_/.test(code);
}

/** An answer read once: status, code, and Prism's violations (its problem body or `sl-violations`). */
export async function readExchange(
  res: Response,
  operation: string,
  credential: Credential,
  url: string,
): Promise<{ exchange: Exchange; json: unknown }> {
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON: a CSV export, an image, HTML */ }
  const prismType = typeof json?.type === "string" && json.type.startsWith(PRISM_ERRORS)
    ? json.type.slice(PRISM_ERRORS.length)
    : undefined;
  const listed = (json?.validation ?? []) as Array<
    { location?: string[]; message?: string; severity?: string }
  >;
  const header = res.headers.get("sl-violations");
  const fromHeader = header && !header.startsWith("Too many")
    ? JSON.parse(header) as Array<{ location?: string[]; message?: string; severity?: string }>
    : [];
  const violations = [...listed, ...fromHeader]
    .filter((v) => (v.severity ?? "Error") === "Error")
    .map((v) => `${(v.location ?? []).join(".")}: ${v.message}`);
  const error = json?.error as { code?: string; message?: string } | undefined;
  return {
    exchange: {
      operation,
      credential,
      url,
      status: res.status,
      code: prismType ?? error?.code,
      message: error?.message?.slice(0, 300),
      fromPrism: prismType !== undefined,
      violations: [...new Set(violations)],
    },
    json,
  };
}

/**
 * The findings one exchange carries, each with a key stable across runs (for the allow-list). `mayAnswer`
 * holds the codes the document lets the operation answer (its own list and the ones every operation
 * may); a refusal with another code is a state rule the document does not list.
 */
export function findingsOf(e: Exchange, mayAnswer?: ReadonlySet<string>): Finding[] {
  const at = (kind: FindingKind, detail: string) => ({
    kind,
    key: `${kind} ${e.operation} ${detail}`,
    exchange: e,
  });
  if (e.fromPrism) {
    if (e.code === "VIOLATIONS") return e.violations.map((v) => at("response-violation", v));
    // Without credentials Prism answers 401 itself for an operation that declares a scheme: expected.
    if (e.code === "UNAUTHORIZED" && e.credential === "none") return [];
    return [at("request-violation", e.violations.length ? e.violations.join("; ") : `${e.status} ${e.code}`)];
  }
  if (e.status >= 500) return [at("5xx", `${e.status} ${e.code ?? ""}`.trim())];
  if (e.direct && e.violations.length > 0) return e.violations.map((v) => at("response-violation", v));
  if ((e.status === 400 || e.status === 422) && isShapeCode(e.code)) {
    return [at("shape-refusal", `${e.status} ${e.code}`)];
  }
  if (e.status >= 400 && e.code && mayAnswer && !mayAnswer.has(e.code)) {
    return [at("unlisted-code", `${e.status} ${e.code}`)];
  }
  return [];
}

/** Strings in an answer that can name a resource later: ids (`pay_…`) and values under a key (`slug`). */
export function harvest(json: unknown, pool: Map<string, string[]>, key = ""): void {
  if (typeof json === "string") {
    const name = /^[a-z]+_[0-9a-z]{26}$/.test(json) ? "id" : key;
    if (name && json.length <= 200) {
      const list = pool.get(name) ?? [];
      if (!list.includes(json)) list.unshift(json);
      pool.set(name, list.slice(0, 200));
    }
  } else if (Array.isArray(json)) json.slice(0, 20).forEach((v) => harvest(v, pool, key));
  else if (json && typeof json === "object") {
    for (const [k, v] of Object.entries(json)) harvest(v, pool, k);
  }
}
