// The leases of one environment server: a fixed number of slots, allocation idempotent by (task key, request id) as
// the reference's pool keeps it (the same pair within its TTL gets the same lease), ids "run-<16 hex>" as the pool's,
// one operation at a time per lease, and idle leases reaped after their TTL.
// Knows nothing of HTTP or of what an episode's state is; it calls `release` when a lease's state must go.
import { randomBytes } from "node:crypto";

export interface Lease<State> {
  readonly id: string;
  readonly taskKey: string;
  state: State | undefined;
  lastSeen: number;
  /** Operations running on it now; a busy lease is never reaped. */
  busy: number;
  tail: Promise<unknown>;
}

export interface LeaseTableOptions<State> {
  slots: number;
  /** A lease not used for this long is released by reapIdle(). */
  leaseTtlMs: number;
  /** How long a (task key, request id) keeps its lease for a retried /allocate. */
  requestTtlMs: number;
  release: (state: State) => Promise<void>;
  now?: () => number;
}

export class LeaseTable<State> {
  private readonly leases = new Map<string, Lease<State>>();
  private readonly byRequest = new Map<string, { leaseId: string; at: number }>();
  private readonly now: () => number;
  private reapedCount = 0;

  constructor(private readonly options: LeaseTableOptions<State>) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.leases.size;
  }

  get reaped(): number {
    return this.reapedCount;
  }

  /**
   * The lease `requestId` got before for `taskKey` (reused, while it lives and the TTL holds), a new one, or "full";
   * without a request id every call gets a new lease, as the reference's pool does.
   */
  allocate(taskKey: string, requestId: string | undefined): { lease: Lease<State>; reused: boolean } | "full" {
    this.forgetOldRequests();
    const requestKey = requestId === undefined ? undefined : `${taskKey}\u0000${requestId}`;
    const known = requestKey === undefined ? undefined : this.byRequest.get(requestKey);
    const lease = known && this.leases.get(known.leaseId);
    if (lease) return { lease: this.touch(lease), reused: true };
    if (this.leases.size >= this.options.slots) return "full";
    const created: Lease<State> = { id: `run-${randomBytes(8).toString("hex")}`, taskKey, state: undefined, lastSeen: this.now(), busy: 0, tail: Promise.resolve() };
    this.leases.set(created.id, created);
    if (requestKey !== undefined) this.byRequest.set(requestKey, { leaseId: created.id, at: this.now() });
    return { lease: created, reused: false };
  }

  /** The lease, marked as used now; undefined when it is unknown, closed or reaped. */
  find(leaseId: string): Lease<State> | undefined {
    const lease = this.leases.get(leaseId);
    return lease && this.touch(lease);
  }

  /** Runs `operation` after the lease's earlier ones (a reset never races its tool calls). */
  serialize<T>(lease: Lease<State>, operation: () => Promise<T>): Promise<T> {
    lease.busy++;
    const result = lease.tail.then(operation).finally(() => {
      lease.busy--;
      this.touch(lease);
    });
    lease.tail = result.catch(() => undefined);
    return result;
  }

  /** Releases the lease's state and forgets it; false when there was no such lease. */
  async close(leaseId: string): Promise<boolean> {
    const lease = this.leases.get(leaseId);
    if (!lease) return false;
    this.leases.delete(leaseId);
    await lease.tail;
    await this.releaseState(lease);
    return true;
  }

  /** Closes every lease idle for longer than the TTL; the ids it closed. */
  async reapIdle(): Promise<string[]> {
    const cutoff = this.now() - this.options.leaseTtlMs;
    const idle = [...this.leases.values()].filter((lease) => lease.busy === 0 && lease.lastSeen < cutoff).map((lease) => lease.id);
    await Promise.all(idle.map((leaseId) => this.close(leaseId)));
    this.reapedCount += idle.length;
    return idle;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.leases.keys()].map((leaseId) => this.close(leaseId)));
    this.byRequest.clear();
  }

  /** Releases the state a lease holds now (before a second reset gives it a new one). */
  async releaseState(lease: Lease<State>): Promise<void> {
    const state = lease.state;
    lease.state = undefined;
    if (state !== undefined) await this.options.release(state).catch(() => undefined);
  }

  private touch(lease: Lease<State>): Lease<State> {
    lease.lastSeen = this.now();
    return lease;
  }

  private forgetOldRequests(): void {
    const cutoff = this.now() - this.options.requestTtlMs;
    for (const [requestId, entry] of this.byRequest) if (entry.at < cutoff) this.byRequest.delete(requestId);
  }
}
