// Who is calling once a key is authenticated; apart from domain/auth.ts so the key cache can hold it.
import type { ApiKeyAuth } from "./api_keys.ts";

/** The key's holder, with the merchant settings most routes need, read in the same lookup. */
export type Caller = ApiKeyAuth & {
  rateLimits: Record<string, number>;
  /** The merchant's own plan limits as the key's lookup read them (domain/limits/plan.ts). */
  planLimits?: Record<string, string>;
  kybStatus: "PENDING" | "APPROVED" | "REJECTED";
  /** The merchant agreement as signed (domain/merchants/live_gate.ts reads both). */
  agreementVersion: number | null;
  agreementResignBy: Date | null;
  enabledRails: string[];
  feeSchedule: Record<string, string>;
  /** CIDR ranges the request must come from (empty: anywhere): the merchant's and this key's. */
  ipAllowlist?: { merchant: string[]; key: string[] };
};
