// The run's status API: the admin server (status, the event stream, the resume and evaluation-recorded actions) and
// the dashboard, over one tally of the run's events. Ignores what is tallied (status/) and when it starts (run.ts).
import { versionMetricsSchema, type VersionMetrics } from "../../contracts/evaluation.ts";
import { ResourceStack } from "../../lib/resource-stack.ts";
import { RESUME_ROUTE } from "../bridge/training-pause.ts";
import { EVALUATION_RECORDED_ROUTE, evaluationDoneEvent } from "../evaluation/evaluation-announcement.ts";
import { AdminServer } from "../status/admin-server.ts";
import { createAdminToken } from "../status/admin-token.ts";
import { createDashboardRoutes } from "../status/dashboard/dashboard-routes.ts";
import { RunTally } from "../status/run-tally.ts";
import { StatusTracker } from "../status/status-tracker.ts";
import { followBus } from "../status/tally-feed.ts";
import { versionLabels } from "../weights/version-labels.ts";
import { reportTo, type Run } from "./run-context.ts";

export interface StatusApi {
  status: StatusTracker;
  adminToken: string;
  urls: { proxy: string; admin: string; dashboard: string; bridge: string | null };
}

/** The status API stays up until the engines have stopped, so its place is first on the stack; it fills it when it starts. */
export function reserveStatusApi(run: Run): ResourceStack {
  const parts = new ResourceStack({ onCloseError: reportTo(run.bus) });
  run.stack.push("status API", () => parts.closeAll());
  return parts;
}

/** The status API (status, the event stream, the dashboard); its parts go into the place reserved for them, so they close last. */
export async function startStatusApi(run: Run, parts: ResourceStack, endpoints: { proxy: string; bridge: string | null }): Promise<StatusApi> {
  const { recipe, runDir, bus, options } = run;
  const adminToken = createAdminToken(runDir);
  const urls = { proxy: endpoints.proxy, admin: "", dashboard: "", bridge: endpoints.bridge };
  // one fold of the run's events, read by status and the dashboard alike
  const tally = new RunTally(recipe.training.batch_size, {}, { runId: options.runId });
  const unfollow = followBus(bus, tally);
  const status = new StatusTracker(bus, recipe, { readiness: options.readiness, endpoints: () => urls }, tally);
  const admin = new AdminServer({ bus, token: adminToken, snapshot: () => status.snapshot(), actions: {
    // answered once the run folder's record of the pause is gone too (a restart right after does not pause again)
    [RESUME_ROUTE]: {
      run: async () => {
        const result = run.pause.resume(`POST ${RESUME_ROUTE}`);
        await run.pause.recorded();
        return result;
      },
    },
    // `openclaw-rl eval` beside this start: its live version's result joins the screens as continuous evaluation's do
    [EVALUATION_RECORDED_ROUTE]: {
      body: versionMetricsSchema,
      run: (body) => {
        const metrics = body as VersionMetrics; // (parsed by versionMetricsSchema before it gets here)
        bus.emit(evaluationDoneEvent(metrics));
        return { announced: metrics.version };
      },
    },
  } });
  const dashboard = createDashboardRoutes({
    bus, recordsDir: runDir, token: adminToken, method: recipe.method, batchSize: recipe.training.batch_size, versionLabelNote: versionLabels(recipe).note, tally,
    sessionIdleTimeoutS: recipe.proxy.session_idle_timeout_s, evaluationEveryVersions: recipe.evaluation.every_versions,
  });
  admin.mount(dashboard);
  parts.push("admin", () => admin.close());
  parts.push("status", () => {
    status.close();
    unfollow();
  });
  parts.push("dashboard", () => dashboard.close());
  const address = await admin.listen(options.ports?.admin ?? recipe.proxy.admin_port);
  urls.admin = address.url;
  urls.dashboard = `${address.url}${dashboard.basePath}/?token=${adminToken}`;
  return { status, adminToken, urls };
}
