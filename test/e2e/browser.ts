// A real Chromium for the e2e tests: Debian's `chromium` (or CHROMIUM_PATH) driven by playwright-core,
// headless, with a fresh user-data dir per launch. A missing browser fails the run with how to install it.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page, type Worker } from "playwright-core";
import { CHROMIUM_ARGS, chromiumOnPath } from "../../scripts/lib/chromium.mjs";

export { CHROMIUM_ARGS };

export const SCREENSHOT_DIR = fileURLToPath(new URL("../../test-results/screenshots/", import.meta.url));

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

function missingChromium(detail: string): Error {
  const install = "apt-get update && apt-get install -y chromium";
  const lines = [
    `Chromium is needed for the e2e tests, and ${detail}.`,
    `Install it with: ${install}`,
    "or set CHROMIUM_PATH to a Chromium or Chrome binary.",
  ];
  if (process.env.CI === "true") {
    const bar = "=".repeat(78);
    const loud = [bar, "CI: THE E2E TESTS CANNOT RUN WITHOUT CHROMIUM.", ...lines, bar].join("\n");
    console.error(`\n${loud}\n`);
    return new Error(loud);
  }
  return new Error(lines.join("\n"));
}

/** The Chromium binary: CHROMIUM_PATH, else `chromium` on PATH (what `which chromium` prints). */
export function findChromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw missingChromium(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  const found = chromiumOnPath();
  if (found) return found;
  throw missingChromium("no `chromium` was found on PATH (CHROMIUM_PATH is not set)");
}

export interface E2EBrowser {
  context: BrowserContext;
  /** A new tab with the given viewport (desktop by default). */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** A full-page screenshot saved as test-results/screenshots/<name>.png. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/** `extraArgs` go after CHROMIUM_ARGS, e.g. ["--enable-blink-features=WebMCP"] for the browser's own WebMCP. */
export async function launchBrowser(extraArgs: string[] = []): Promise<E2EBrowser> {
  const executablePath = findChromium();
  const userDataDir = await mkdtemp(join(tmpdir(), "webmcp-hub-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      viewport: DESKTOP,
    });
  } catch (e) {
    await rm(userDataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    context,
    async newPage(viewport = DESKTOP) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      return page;
    },
    async screenshot(page, name) {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The unpacked extension, as `npm run build` leaves it. */
export const EXTENSION_DIR = fileURLToPath(new URL("../../dist/extension/", import.meta.url));

export interface ExtensionBrowser {
  context: BrowserContext;
  /** The profile: pass it to launchWithExtension again to restart the browser with it. */
  userDataDir: string;
  /** The extension's service worker, as first started (after a restart, ask through an extension page). */
  worker: Worker;
  extensionId: string;
  close(): Promise<void>;
}

/**
 * Chromium with the unpacked extension (dist/extension), and its service worker: in a fresh profile, or in
 * `profile.userDataDir` (a browser restart; `close` then keeps the profile unless `keepProfile` is false).
 */
export async function launchWithExtension(
  extraArgs: string[] = [],
  profile: { userDataDir?: string; keepProfile?: boolean } = {},
): Promise<ExtensionBrowser> {
  const userDataDir = profile.userDataDir ?? (await mkdtemp(join(tmpdir(), "webmcp-hub-extension-")));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: findChromium(),
    headless: false, // --headless=new below: the old headless mode cannot load extensions.
    args: [
      "--headless=new",
      ...CHROMIUM_ARGS.filter((a) => a !== "--headless"),
      `--disable-extensions-except=${EXTENSION_DIR}`,
      `--load-extension=${EXTENSION_DIR}`,
      ...extraArgs,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  return {
    context,
    worker,
    extensionId: new URL(worker.url()).host,
    userDataDir,
    async close() {
      await context.close();
      if (!profile.keepProfile) await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A new account at `hub`/signin with a passkey (a CDP virtual authenticator on `page`, which must be on a host
 * name: passkeys refuse 127.0.0.1), as a person signs up: their name, "Create account with a passkey".
 * Resolves on /account.
 */
export async function signUpWithPasskey(page: Page, hub: string, name: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto(`${hub}/signin`);
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Create account with a passkey" }).click();
  await page.waitForURL(`${hub}/account`);
}
