// The gap audit's cron (leader-only through the cron lease, idempotent anyway): see domain/payins/gap_audit.ts.
import type { Deps } from "../domain/deps.ts";
import { auditChainGaps } from "../domain/payins/gap_audit.ts";

export async function handleGapAudit(deps: Deps): Promise<void> {
  const report = await auditChainGaps(deps);
  if (report && (report.holes || report.mismatches)) deps.log.warn("gap audit mended blocks", report);
}
