// A loopback HTTP server that mounts the dashboard routes the way the admin server does, for tests:
// port 0, 127.0.0.1 only, closes its streams before the server.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventBus } from "../../orchestrator/event-bus.ts";
import { createDashboardRoutes, type DashboardDeps, type DashboardRouteHandler } from "../../orchestrator/status/dashboard/dashboard-routes.ts";

export interface DashboardHarness {
  bus: EventBus;
  routes: DashboardRouteHandler;
  server: Server;
  baseUrl: string;
  token: string;
  recordsDir: string;
  pageUrl: string;
  close(): Promise<void>;
}

export async function startDashboardHarness(options: Partial<DashboardDeps> = {}): Promise<DashboardHarness> {
  const bus = options.bus ?? new EventBus();
  const recordsDir = options.recordsDir ?? mkdtempSync(join(tmpdir(), "dashboard-records-"));
  const token = options.token ?? "test-admin-token-0123456789";
  const routes = createDashboardRoutes({ ...options, bus, recordsDir, token });
  const server = createServer((request, response) => {
    if (routes(request, response)) return;
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    bus, routes, server, baseUrl, token, recordsDir,
    pageUrl: `${baseUrl}${routes.basePath}?token=${encodeURIComponent(token)}`,
    async close() {
      routes.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
