// Where webhooks may be sent (ARCHITECTURE.md, "webhook URLs"): in production https only and never to
// loopback, private, link-local, CGNAT or metadata addresses; APP_ENV=development also allows http and
// loopback, every other rule still applies. Checked at registration and again before every connection,
// because a DNS name can be pointed somewhere else after it was registered.
import { parseIpv4, parseIpv6 } from "../ip.ts";
import type { Config } from "../../config.ts";
import { AppError } from "../errors.ts";

export type Resolver = (host: string, type: "A" | "AAAA") => Promise<string[]>;

const DNS_TIMEOUT_MS = 3_000;

export const denoResolver: Resolver = (host, type) =>
  Deno.resolveDns(host, type, { signal: AbortSignal.timeout(DNS_TIMEOUT_MS) });

/** Why an address may not receive webhooks, or null for a public address. "loopback" is allowed in dev. */
export type BlockReason =
  | "loopback"
  | "private"
  | "link-local"
  | "shared (CGNAT)"
  | "unspecified"
  | "multicast or reserved"
  | "IPv4-mapped IPv6"
  | "IPv4 tunnel"
  | "metadata";

function inV4(ip: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  const start = parseIpv4(base)!;
  return ip >= start && ip < start + size;
}

export function classifyIpv4(text: string): BlockReason | null {
  const ip = parseIpv4(text);
  if (ip === null) return "unspecified";
  if (text === "169.254.169.254") return "metadata";
  if (inV4(ip, "0.0.0.0", 8)) return "unspecified";
  if (inV4(ip, "127.0.0.0", 8)) return "loopback";
  if (inV4(ip, "10.0.0.0", 8) || inV4(ip, "172.16.0.0", 12) || inV4(ip, "192.168.0.0", 16)) return "private";
  if (inV4(ip, "192.0.0.0", 24) || inV4(ip, "198.18.0.0", 15)) return "private";
  if (inV4(ip, "169.254.0.0", 16)) return "link-local";
  if (inV4(ip, "100.64.0.0", 10)) return "shared (CGNAT)";
  if (inV4(ip, "224.0.0.0", 4) || inV4(ip, "240.0.0.0", 4)) return "multicast or reserved";
  return null;
}

export function classifyIpv6(text: string): BlockReason | null {
  const g = parseIpv6(text);
  if (!g) return "unspecified";
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = () => `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96) and the deprecated IPv4-compatible
  // (::/96) forms are refused outright: a dual-stack socket turns them into IPv4 connections, and no
  // receiver needs them since its IPv4 address can be given as such.
  if (zeroUpTo(5) && g[5] === 0xffff) return "IPv4-mapped IPv6";
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return "IPv4-mapped IPv6";
  if (zeroUpTo(6)) return "IPv4-mapped IPv6";
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyIpv4(embedded()) ?? null; // well-known NAT64 reaches the embedded IPv4 address
  }
  // Local-use NAT64 (64:ff9b:1::/48, RFC 8215): the network chooses where the IPv4 address sits, so it
  // cannot be judged; refused whole.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "IPv4 tunnel";
  // 6to4 (2002::/16) carries an IPv4 address in bits 16-47: judged by it, as NAT64 is.
  if (g[0] === 0x2002) {
    return classifyIpv4(`${g[1] >> 8}.${g[1] & 255}.${g[2] >> 8}.${g[2] & 255}`) ?? null;
  }
  if (g[0] === 0x2001 && g[1] === 0) return "IPv4 tunnel"; // Teredo: the IPv4 ends are obfuscated
  if ((g[0] & 0xfe00) === 0xfc00) return "private";
  if ((g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0) return "link-local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast or reserved";
  return null;
}

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data"]);
const PRIVATE_SUFFIXES = [".local", ".internal", ".localdomain", ".home.arpa", ".lan"];

/** The verdict on a host name without resolving it: blocked, an IP to classify, or a name to resolve. */
function judgeHost(hostname: string): { reason: BlockReason | null; isName: boolean } {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) return { reason: classifyIpv6(host), isName: false };
  if (/^[\d.]+$/.test(host)) return { reason: classifyIpv4(host), isName: false };
  if (host === "localhost" || host.endsWith(".localhost")) return { reason: "loopback", isName: false };
  if (METADATA_HOSTS.has(host)) return { reason: "metadata", isName: false };
  // Single-label and private-use names resolve through search domains or local resolvers to inside hosts.
  if (!host.includes(".") || PRIVATE_SUFFIXES.some((s) => host.endsWith(s))) {
    return { reason: "private", isName: false };
  }
  return { reason: null, isName: true };
}

function allowed(reason: BlockReason | null, config: Pick<Config, "appEnv">): boolean {
  return reason === null || (reason === "loopback" && config.appEnv === "development");
}

async function resolveAll(host: string, resolve: Resolver): Promise<string[] | null> {
  const results = await Promise.allSettled([resolve(host, "A"), resolve(host, "AAAA")]);
  const addresses = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
  return results.every((r) => r.status === "rejected") ? null : addresses;
}

function firstBlocked(addresses: string[], config: Pick<Config, "appEnv">): string | null {
  for (const address of addresses) {
    const reason = address.includes(":") ? classifyIpv6(address) : classifyIpv4(address);
    if (!allowed(reason, config)) return `resolves to a ${reason} address`;
  }
  return null;
}

function urlProblem(raw: string, config: Pick<Config, "appEnv">): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: "not a valid absolute URL" };
  }
  const httpOk = config.appEnv === "development" && url.protocol === "http:";
  if (url.protocol !== "https:" && !httpOk) {
    return { problem: config.appEnv === "development" ? "must be http or https" : "must use https" };
  }
  // Credentials would be stored and shown in clear, and sent to whoever the host is.
  if (url.username || url.password) return { problem: "must not contain credentials" };
  const { reason } = judgeHost(url.hostname);
  if (!allowed(reason, config)) return { problem: `host is a ${reason} address` };
  return { url };
}

/**
 * Registration check. A DNS name is resolved (A and AAAA); a resolution failure is "not decided yet"
 * and accepted, since the connect-time check decides again before anything is sent.
 */
export async function assertWebhookUrlAllowed(
  config: Pick<Config, "appEnv">,
  raw: string,
  resolve: Resolver = denoResolver,
): Promise<void> {
  const fail = (reason: string) =>
    new AppError("VALIDATION_ERROR", `Webhook URL ${reason}`, { details: [{ field: "url", reason }] });
  const checked = urlProblem(raw, config);
  if ("problem" in checked) throw fail(checked.problem);
  if (!judgeHost(checked.url.hostname).isName) return;
  const addresses = await resolveAll(checked.url.hostname.replace(/\.$/, ""), resolve);
  const blocked = addresses && firstBlocked(addresses, config);
  if (blocked) throw fail(blocked);
}

/** A URL whose host was resolved once and vetted: the delivery connects to `address`, nowhere else. */
export type VettedTarget = { url: URL; address: string; port: number };

/**
 * Why a delivery may not connect: the URL itself (scheme, credentials, a literal blocked address), its
 * name giving no address, or its name giving an address the policy refuses.
 */
export type ConnectRefusal = { problem: string; cause: "url" | "unresolved" | "blocked_address" };

function literalAddress(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) return host.slice(1, -1);
  if (/^[\d.]+$/.test(host)) return host;
  if (host === "localhost" || host.endsWith(".localhost")) return "127.0.0.1";
  return null;
}

/**
 * Connect-time check, and the address to connect to. The name is resolved once (A and AAAA); every
 * address must pass, and the first (IPv4 preferred) is the one the request is pinned to, so a resolver
 * that answers differently a moment later (DNS rebinding) changes nothing. A name that does not resolve
 * is refused: there is nothing vetted to connect to.
 */
export async function vetConnectTarget(
  config: Pick<Config, "appEnv">,
  raw: string,
  resolve: Resolver = denoResolver,
): Promise<{ target: VettedTarget } | ConnectRefusal> {
  const checked = urlProblem(raw, config);
  if ("problem" in checked) return { problem: `URL refused: ${checked.problem}`, cause: "url" };
  const { url } = checked;
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const literal = literalAddress(url.hostname);
  if (literal) return { target: { url, address: literal, port } };
  const addresses = await resolveAll(url.hostname.replace(/\.$/, ""), resolve);
  if (!addresses || addresses.length === 0) {
    return { problem: "URL refused: host name did not resolve", cause: "unresolved" };
  }
  const blocked = firstBlocked(addresses, config);
  if (blocked) return { problem: `URL refused: host ${blocked}`, cause: "blocked_address" };
  const address = addresses.find((a) => !a.includes(":")) ?? addresses[0];
  return { target: { url, address, port } };
}

/** Connect-time check alone: null when the URL may be called now, else why not. */
export async function connectTargetProblem(
  config: Pick<Config, "appEnv">,
  raw: string,
  resolve: Resolver = denoResolver,
): Promise<string | null> {
  const vetted = await vetConnectTarget(config, raw, resolve);
  return "problem" in vetted ? vetted.problem : null;
}
