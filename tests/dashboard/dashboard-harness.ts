// The real loopback admin server with the dashboard mounted the way `start` mounts it, for tests: port 0,
// 127.0.0.1 only, a fresh run folder and token; close() ends the dashboard's streams, then the server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recipeSchema } from "../../contracts/recipe.ts";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { AdminServer } from "../../orchestrator/status/admin-server.ts";
import { createAdminToken } from "../../orchestrator/status/admin-token.ts";
import { createDashboardRoutes, type DashboardDeps, type DashboardRouteHandler } from "../../orchestrator/status/dashboard/dashboard-routes.ts";
import { StatusTracker } from "../../orchestrator/status/status-tracker.ts";

export interface DashboardHarness {
  bus: EventBus;
  routes: DashboardRouteHandler;
  admin: AdminServer;
  baseUrl: string;
  token: string;
  recordsDir: string;
  /** The link `start` prints: http://127.0.0.1:<admin_port>/dashboard?token=<admin token>. */
  pageUrl: string;
  close(): Promise<void>;
}

export async function startDashboardHarness(options: Partial<Omit<DashboardDeps, "bus" | "token">> = {}): Promise<DashboardHarness> {
  const bus = new EventBus();
  const ownDir = options.recordsDir === undefined;
  const recordsDir = options.recordsDir ?? mkdtempSync(join(tmpdir(), "dashboard-run-"));
  const token = createAdminToken(recordsDir);
  const method = options.method ?? "combine";
  const recipe = recipeSchema.parse({ name: "dashboard-test", method, engine: { kind: "rehearsal" }, training: { batch_size: options.batchSize ?? 16 } });
  const tracker = new StatusTracker(bus, recipe);
  const admin = new AdminServer({ bus, token, snapshot: () => tracker.snapshot() });
  const routes = createDashboardRoutes({ ...options, bus, recordsDir, token, method, batchSize: recipe.training.batch_size });
  admin.mount(routes);
  const { url } = await admin.listen(0);
  return {
    bus, routes, admin, baseUrl: url, token, recordsDir,
    pageUrl: `${url}${routes.basePath}?token=${encodeURIComponent(token)}`,
    async close() {
      routes.close();
      tracker.close();
      await admin.close();
      if (ownDir) rmSync(recordsDir, { recursive: true, force: true });
    },
  };
}
