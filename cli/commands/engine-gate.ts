// The engines as the orchestrator asks about them from its first request on, before the supervisor exists: "engines
// are starting" until a supervisor is attached, then the supervisor's own answers. Owns that hand-over only.
import type { Supervisor } from "../../launchers/supervisor/supervisor.ts";
import type { OrchestratorOptions, Readiness } from "../../orchestrator/run.ts";

type EngineStates = ReturnType<NonNullable<OrchestratorOptions["engineStates"]>>;

const STARTING: Readiness = { ready: false, reason: "engines are starting", retryAfterS: 5 };

export class EngineGate {
  private supervisor: Supervisor | null = null;

  /** From now on the gate answers with this supervisor's traffic gate and engine states. */
  attach(supervisor: Supervisor): void {
    this.supervisor = supervisor;
  }

  /** Whether the proxy takes traffic (the orchestrator's `readiness`). */
  readonly readiness = (): Readiness => this.supervisor?.trafficGate() ?? STARTING;

  /** The supervised engines in launch order (the orchestrator's `engineStates`); none before the supervisor. */
  readonly states = (): EngineStates => this.supervisor?.statuses().map(({ name, state, detail }) => ({ name, state, detail })) ?? [];
}
