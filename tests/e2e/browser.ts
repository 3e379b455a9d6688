// Headless Chromium for end-to-end tests, driven by playwright-core. Never downloads a browser: it uses
// the system's (Debian package `chromium`; `apt-get install -y chromium` where missing).
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** True when the system browser is installed (tests can skip with a clear message otherwise). */
export function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
}

export async function launchBrowser(): Promise<Browser> {
  if (!hasChromium()) {
    throw new Error(`${CHROMIUM_PATH} is missing: apt-get update && apt-get install -y chromium`);
  }
  return await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** A phone-sized context: 360 px wide by default, touch, a French-speaking customer unless told. */
export async function phoneContext(
  browser: Browser,
  options: { width?: number; height?: number; locale?: string; origin?: string } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 360, height: options.height ?? 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: options.locale ?? "fr-FR",
  });
  if (options.origin) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: options.origin });
  }
  return context;
}

/**
 * Collects what a page test asserts stays empty: requests leaving the given origins (data: URLs aside),
 * console errors and uncaught page errors.
 */
export function watchPage(page: Page, origins: string[]): { foreign: string[]; problems: string[] } {
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => {
    const url = r.url();
    if (!url.startsWith("data:") && !origins.some((o) => url.startsWith(o))) foreign.push(url);
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`${msg.text()} ${msg.location().url}`);
  });
  page.on("pageerror", (e) => problems.push(e.message));
  return { foreign, problems };
}
