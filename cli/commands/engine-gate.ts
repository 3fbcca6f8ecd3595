// The engines' traffic gate as the orchestrator asks about it from its first request on, before the supervisor exists:
// "engines are starting" until a supervisor is attached, then the supervisor's own answer. Owns that hand-over only
// (the engines' states reach status and the dashboard as engine-state events).
import type { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import type { Readiness } from "../../orchestrator/run/run-context.ts";

const STARTING: Readiness = { ready: false, reason: "engines are starting", retryAfterS: 5 };

export class EngineGate {
  private supervisor: Supervisor | null = null;

  /** From now on the gate answers with this supervisor's traffic gate. */
  attach(supervisor: Supervisor): void {
    this.supervisor = supervisor;
  }

  /** Whether the proxy takes traffic (the orchestrator's `readiness`). */
  readonly readiness = (): Readiness => this.supervisor?.trafficGate() ?? STARTING;
}
