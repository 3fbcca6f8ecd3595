// The dashboard's HTTP routes for the admin server to mount: the page, its static assets, a JSON API
// (snapshot, turn pages, one turn's detail) and a live SSE stream, all behind the admin token; the page asked for
// without the token answers with a page that says how to open it.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { OpenclawRlError } from "../../../contracts/errors.ts";
import type { EventBus } from "../../event-bus.ts";
import type { RunTally } from "../run-tally.ts";
import { loadDashboardAssets, type Asset } from "./dashboard-assets.ts";
import { tokenMissingPage } from "./token-missing-page.ts";
import { DashboardHistory, type DashboardLimits } from "./dashboard-history.ts";
import { DashboardStream, type DashboardStreamOptions } from "./dashboard-stream.ts";
import type { RecordIndexLimits } from "./record-index.ts";
import { TurnDetails } from "./turn-details.ts";
import { sendJson } from "../../../lib/http/send-json.ts";
import type { Method } from "../../../contracts/recipe.ts";

export interface DashboardDeps {
  bus: EventBus;
  /** The run folder (records.dir): turns.jsonl and judgements.jsonl are read from here. */
  recordsDir: string;
  /** The admin token: accepted as `Authorization: Bearer …` or `?token=…`. */
  token: string;
  /** The recipe's method, so the page shows hint charts before the first judged turn. */
  method?: Method;
  /** The recipe's training.batch_size, shown before the first sample is ready. */
  batchSize?: number;
  /** Shown under the weight updates when the run's version labels are approximate (version-labels.ts). */
  versionLabelNote?: string | null;
  /** The run's one fold, fed by its owner and read by status too (start's); without it, the dashboard folds the bus itself. */
  tally?: RunTally;
  /** proxy.session_idle_timeout_s: when an open turn (waiting for its session's next message) is closed without one. */
  sessionIdleTimeoutS?: number;
  /** evaluation.every_versions (0 or absent: held-out evaluation is off; the page says how to start it). */
  evaluationEveryVersions?: number;
  /** Where the dashboard lives on the admin server. */
  basePath?: string;
  limits?: Partial<DashboardLimits>;
  recordLimits?: Partial<RecordIndexLimits>;
  stream?: Partial<DashboardStreamOptions>;
}

/** Matches the admin server's AdminRouteHandler: true when it answered (it does its own token check). */
export type DashboardRouteHandler = ((request: IncomingMessage, response: ServerResponse) => boolean) & {
  /** Ends the live streams and stops listening to the bus (call before the admin server closes). */
  close(): void;
  readonly basePath: string;
  readonly history: DashboardHistory;
};

const securityHeaders = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
};

export function createDashboardRoutes(deps: DashboardDeps): DashboardRouteHandler {
  if (deps.token.length < 8) {
    throw new OpenclawRlError("INTERNAL", "the dashboard needs the admin token (at least 8 characters)", { hint: "pass the admin server's token to createDashboardRoutes" });
  }
  const basePath = (deps.basePath ?? "/dashboard").replace(/\/+$/, "");
  const history = new DashboardHistory(deps.limits, deps.method ?? null, deps.batchSize ?? null, deps.versionLabelNote ?? null, deps.tally, deps.sessionIdleTimeoutS ?? null, {
    everyVersions: deps.evaluationEveryVersions ?? 0,
    runDir: deps.recordsDir,
  });
  for (const event of deps.bus.recent()) history.apply(event);
  const stream = new DashboardStream(history, deps.stream);
  const unsubscribe = deps.bus.subscribe((event) => {
    history.apply(event);
    stream.markChanged();
  });
  const details = new TurnDetails(deps.recordsDir, deps.recordLimits);
  const { page, assets } = loadDashboardAssets(basePath);
  const expectedToken = digest(deps.token);

  const handler = (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return false;
    const route = url.pathname.slice(basePath.length).replace(/^\/+/, "");
    if (request.method !== "GET" && !(request.method === "HEAD" && !route.startsWith("api/"))) {
      sendDashboardJson(response, 405, { error: `${request.method} is not supported here; the dashboard is read-only (GET)` }, { Allow: "GET" });
      return true;
    }
    if (route.startsWith("assets/")) {
      // code and styles only, nothing of the run: served without the token so <script src> works
      const asset = assets.get(route.slice("assets/".length));
      if (asset) sendAsset(response, asset, "public, max-age=300");
      else sendDashboardJson(response, 404, { error: `no dashboard asset ${route}` });
      return true;
    }
    if (!authorized(request, url, expectedToken)) {
      if (route === "") sendPage(response, 401, tokenMissingPage({ recordsDir: deps.recordsDir, given: url.searchParams.has("token") || request.headers.authorization !== undefined }));
      else sendDashboardJson(response, 401, { error: "missing or wrong admin token", hint: `open the dashboard link \`npx openclaw-rl start\` printed (it ends in ?token=…), or run \`npx openclaw-rl status --run ${deps.recordsDir}\`, which prints it` });
      return true;
    }
    if (route === "") sendAsset(response, page, "no-store");
    else if (route === "api/snapshot") sendDashboardJson(response, 200, history.snapshot());
    else if (route === "api/stream") stream.attach(response);
    else if (route === "api/turns") serveTurnPage(url, response, history);
    else if (route === "api/turn") void serveTurnDetail(url, response, history, details);
    else sendDashboardJson(response, 404, { error: `no dashboard route ${url.pathname}` });
    return true;
  };
  return Object.assign(handler, {
    basePath,
    history,
    close() {
      unsubscribe();
      stream.close();
    },
  });
}

function serveTurnPage(url: URL, response: ServerResponse, history: DashboardHistory): void {
  const before = optionalInteger(url, "before");
  const limit = optionalInteger(url, "limit");
  if (before === "invalid" || limit === "invalid" || (limit !== null && (limit < 1 || limit > 500))) {
    sendDashboardJson(response, 400, { error: "before must be a positive integer (a row's seq) and limit an integer from 1 to 500" });
    return;
  }
  sendDashboardJson(response, 200, history.turnPage(before, limit ?? history.limits.pageSize));
}

async function serveTurnDetail(url: URL, response: ServerResponse, history: DashboardHistory, details: TurnDetails): Promise<void> {
  const sessionId = url.searchParams.get("session");
  const turn = optionalInteger(url, "turn");
  if (!sessionId || sessionId.length > 512 || turn === null || turn === "invalid") {
    sendDashboardJson(response, 400, { error: "give session (a session id, at most 512 characters) and turn (an integer ≥ 0)" });
    return;
  }
  try {
    sendDashboardJson(response, 200, await details.lookup(sessionId, turn, history.findTurn(sessionId, turn)));
  } catch (error) {
    sendDashboardJson(response, 500, { error: `reading the records failed: ${error instanceof Error ? error.message : String(error)}` });
  }
}

function optionalInteger(url: URL, name: string): number | null | "invalid" {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return null;
  if (!/^\d{1,15}$/.test(raw)) return "invalid";
  return Number(raw);
}

function authorized(request: IncomingMessage, url: URL, expected: Buffer): boolean {
  const header = request.headers.authorization;
  const given = header?.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : url.searchParams.get("token");
  return given !== null && given !== "" && timingSafeEqual(digest(given), expected);
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

function sendAsset(response: ServerResponse, asset: Asset, cacheControl: string): void {
  response.writeHead(200, { ...securityHeaders, "Content-Type": asset.contentType, "Content-Length": asset.body.length, "Cache-Control": cacheControl });
  response.end(response.req.method === "HEAD" ? undefined : asset.body);
}

function sendPage(response: ServerResponse, status: number, html: string): void {
  const body = Buffer.from(html, "utf8");
  response.writeHead(status, { ...securityHeaders, "Content-Type": "text/html; charset=utf-8", "Content-Length": body.length, "Cache-Control": "no-store" });
  response.end(response.req.method === "HEAD" ? undefined : body);
}

/** The dashboard's answers: its security headers, never cached. */
function sendDashboardJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJson(response, status, body, { ...securityHeaders, ...headers, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
}
