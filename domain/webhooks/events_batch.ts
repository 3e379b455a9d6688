// Many events at once, for callers that report a batch of changes in one transaction (the scanner's
// block): the same rows, bodies and queueing as emitEvent (domain/webhooks/events.ts), in one statement.
import { insertEventsWithDeliveries } from "../../db/events_batch.ts";
import type { Deps } from "../deps.ts";
import { type EmitEventInput, queueDeliveriesAfterCommit, webhookBodyOfJson } from "./events.ts";
import { newId } from "../ids.ts";

/**
 * emitEvent for many events at once, in one statement whatever their number (the scanner moves tens of
 * pay-ins per block). Same rows, same bodies, same queueing after commit.
 */
export async function emitEvents(
  deps: Pick<Deps, "db" | "queue" | "clock">,
  inputs: Array<Pick<EmitEventInput, "merchantId" | "isSandbox" | "type" | "data">>,
): Promise<void> {
  if (inputs.length === 0) return;
  const now = deps.clock.now();
  const deliveryIds = await insertEventsWithDeliveries(
    deps.db,
    inputs.map((input) => {
      // Stringified once for the event's row and its webhook body.
      const dataJson = JSON.stringify(input.data);
      return {
        merchantId: input.merchantId,
        isSandbox: input.isSandbox,
        eventId: newId("evt", now.getTime()),
        type: input.type,
        dataJson,
        // Batched events are real ones (test deliveries go through emitEvent's single path).
        body: webhookBodyOfJson(input.type, dataJson, now, { livemode: !input.isSandbox, test: false }),
      };
    }),
    now,
    newId("dlv", now.getTime()).slice(0, "dlv_".length + 10),
  );
  queueDeliveriesAfterCommit(deps, deliveryIds);
}
