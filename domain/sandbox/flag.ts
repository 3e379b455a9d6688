// Authentication section 5: a sandbox key alone does not route to the sandbox. The creation requests
// (POST /v1/payments, POST /v1/paylinks) need `?sandbox=true` or `x-sandbox: true`, and the flag must
// agree with the key's mode.
import { AppError } from "../errors.ts";

export function sandboxFlagged(query: string | undefined, header: string | undefined): boolean {
  return query?.toLowerCase() === "true" || header?.toLowerCase() === "true";
}

/** Returns whether the resource being created is a sandbox one, or throws the specification's code. */
export function resolveCreationMode(keyIsSandbox: boolean, flagged: boolean): boolean {
  if (keyIsSandbox && !flagged) {
    throw new AppError(
      "SANDBOX_KEY_LIVE_REQUEST",
      "A sandbox key needs the sandbox flag: add ?sandbox=true or the header x-sandbox: true",
    );
  }
  if (!keyIsSandbox && flagged) {
    throw new AppError(
      "LIVE_KEY_SANDBOX_REQUEST",
      "The sandbox flag was sent with a live key; use a sandbox key",
    );
  }
  return flagged;
}
