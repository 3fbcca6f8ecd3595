// Headless Debian Chromium for the dashboard's browser tests and screenshot: the one executable path, the
// flags that keep it offline and quiet, and a fresh user-data-dir per launch (removed on dispose).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const chromiumPath = "/usr/bin/chromium";
export const hasChromium = existsSync(chromiumPath);
export const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface LaunchedChromium {
  context: BrowserContext;
  dispose(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1440, height: 1200 }): Promise<LaunchedChromium> {
  const userDataDir = mkdtempSync(join(tmpdir(), "dashboard-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, headless: true, args: chromiumArgs, viewport });
  return {
    context,
    async dispose() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
