// RFC 6238 codes through the `otpauth` library: SHA-1, 6 digits, 30-second steps (what every
// authenticator app reads from an otpauth:// URI). A code is accepted one step early or late (clock drift),
// and the caller refuses any step not later than the last one taken (replay).
import * as OTPAuth from "otpauth";

const PERIOD_SECONDS = 30;
const DIGITS = 6;
const WINDOW = 1;
const ISSUER = "Gateway operators";

export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

function totpOf(secret: string, label = "operator") {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    algorithm: "SHA1",
    digits: DIGITS,
    period: PERIOD_SECONDS,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** The otpauth:// URI an authenticator app scans (as a QR code) or takes typed in. */
export function totpUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

/** The time step of a code `code` valid at `now`, or undefined when it is not (malformed, wrong, too old). */
export function totpStep(secret: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const timestamp = now.getTime();
  const delta = totpOf(secret).validate({ token: code, timestamp, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(timestamp / 1000 / PERIOD_SECONDS) + delta;
}

/** The code of `now` (tests, and the development banner's demo operator). */
export function totpCode(secret: string, now: Date): string {
  return totpOf(secret).generate({ timestamp: now.getTime() });
}
