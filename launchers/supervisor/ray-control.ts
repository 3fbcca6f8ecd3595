// The Ray commands the supervisor needs, each with a timeout: is a cluster up and how many nodes joined,
// a job's status (dashboard REST, cheap), `ray job stop` and wait for STOPPED. Never `ray stop`: it stops every Ray of
// the machine's user by process name (the head's own `ray start --block` stops this run's, supervisor.ts).
import { execa } from "execa";

export interface RayControlOptions {
  ray: string; // executable
  /** Head GCS address host:port (for `ray status --address`). */
  gcsAddress: string;
  /** Dashboard / job API base URL, e.g. http://127.0.0.1:8265. */
  dashboardUrl: string;
  environment: Record<string, string | undefined>;
  cwd?: string;
}

export type RayJobStatus = "PENDING" | "RUNNING" | "STOPPED" | "SUCCEEDED" | "FAILED" | "UNKNOWN";

export class RayControl {
  constructor(readonly options: RayControlOptions) {}

  /** `ray status`: exit 0 means a cluster answers; `nodes` counts the Active section. */
  async status(timeoutMs = 20_000, address: string | null = this.options.gcsAddress): Promise<{ running: boolean; nodes: number; output: string }> {
    const args = address ? ["status", "--address", address] : ["status"];
    const result = await this.run(args, timeoutMs);
    const output = `${result.stdout}\n${result.stderr}`.trim();
    return { running: result.exitCode === 0, nodes: result.exitCode === 0 ? countActiveNodes(result.stdout) : 0, output };
  }

  async dashboardAnswers(timeoutMs = 3000): Promise<boolean> {
    try {
      const response = await fetch(`${this.options.dashboardUrl}/api/version`, { signal: AbortSignal.timeout(timeoutMs) });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  }

  async jobStatus(submissionId: string, timeoutMs = 3000): Promise<{ status: RayJobStatus; message: string }> {
    try {
      const response = await fetch(`${this.options.dashboardUrl}/api/jobs/${encodeURIComponent(submissionId)}`, { signal: AbortSignal.timeout(timeoutMs) });
      if (response.status === 404) return { status: "UNKNOWN", message: `job ${submissionId} not found` };
      const body = (await response.json()) as { status?: string; message?: string };
      const status = (["PENDING", "RUNNING", "STOPPED", "SUCCEEDED", "FAILED"] as const).find((value) => value === body.status) ?? "UNKNOWN";
      return { status, message: body.message ?? "" };
    } catch (error) {
      return { status: "UNKNOWN", message: `dashboard not answering: ${(error as Error).message}` };
    }
  }

  /** `ray job stop <id>` (it waits for the job to end), then confirm it is no longer running. */
  async stopJob(submissionId: string, timeoutMs = 60_000): Promise<RayJobStatus> {
    await this.run(["job", "stop", submissionId, "--address", this.options.dashboardUrl], timeoutMs);
    const deadline = Date.now() + 5000;
    for (;;) {
      const { status } = await this.jobStatus(submissionId);
      if (status !== "RUNNING" && status !== "PENDING") return status;
      if (Date.now() > deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private run(args: string[], timeoutMs: number) {
    return execa(this.options.ray, args, {
      env: this.options.environment,
      extendEnv: false,
      cwd: this.options.cwd,
      reject: false,
      timeout: timeoutMs,
      stdin: "ignore",
    });
  }
}

/** Counts ` 1 node_<id>` lines under "Active:" in `ray status` output. */
export function countActiveNodes(output: string): number {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.trim() === "Active:");
  if (start < 0) return 0;
  let count = 0;
  for (const line of lines.slice(start + 1)) {
    const match = line.match(/^\s*(\d+)\s+node_\S+/);
    if (!match) break;
    count += Number(match[1]);
  }
  return count;
}
