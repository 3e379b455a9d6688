// Screening of every payout and withdrawal destination before acceptance. A listed address is refused
// with AML_BLOCKED and reported to the merchant as aml.flagged; a source that cannot answer refuses the
// movement with AML_SCREENING_UNAVAILABLE (fails closed, never a silent pass).
import {
  createLocalListScreening,
  noScreening,
  type Screening,
  ScreeningUnavailable,
} from "../../rails/screening/local_list.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { emitEvent } from "../webhooks/events.ts";

const byPath = new Map<string, Screening>();

function screeningFor(config: Deps["config"]): Screening {
  const path = config.amlBlocklistPath;
  if (!path) return noScreening;
  let screening = byPath.get(path);
  if (!screening) byPath.set(path, screening = createLocalListScreening(path));
  return screening;
}

/** Throws AML_BLOCKED (after recording aml.flagged) or AML_SCREENING_UNAVAILABLE; returns when clear. */
export async function screenDestination(
  deps: Pick<Deps, "db" | "queue" | "clock" | "config" | "log">,
  input: {
    merchantId: string;
    isSandbox: boolean;
    address: string;
    context: "PAYOUT" | "WITHDRAWAL";
    report: boolean;
  },
): Promise<void> {
  let result;
  try {
    result = await screeningFor(deps.config).screen(input.address);
  } catch (err) {
    if (!(err instanceof ScreeningUnavailable)) throw err;
    deps.log.error("AML screening unavailable", { error: err.message });
    throw new AppError("AML_SCREENING_UNAVAILABLE", "Destination screening is unavailable; retry later");
  }
  if (!result.blocked) return;
  deps.log.warn("AML screening blocked a destination", {
    merchantId: input.merchantId,
    context: input.context,
    source: result.source,
  });
  if (input.report) {
    await emitEvent(deps, {
      merchantId: input.merchantId,
      isSandbox: input.isSandbox,
      type: "aml.flagged",
      data: {
        address: input.address,
        context: input.context,
        reason: result.reason,
        source: result.source,
        flaggedAt: deps.clock.now().toISOString(),
      },
    });
  }
  throw new AppError("AML_BLOCKED", "Destination refused by AML screening");
}
