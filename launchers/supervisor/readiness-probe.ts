// Readiness probes: small async checks that say ready or not, and why (HTTP status of an endpoint, a Ray
// job's state, a bridge hello). Polling lives in supervised-child.ts; every probe call has a timeout.

export interface ProbeResult {
  ready: boolean;
  /** What was seen: `GET http://127.0.0.1:31000/health_generate → 503`, `job openclaw-rl-1 is PENDING`. */
  detail: string;
}

export type ReadinessProbe = () => Promise<ProbeResult>;

export function httpProbe(url: string, timeoutMs = 3000): ReadinessProbe {
  return async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      await response.arrayBuffer();
      return { ready: response.ok, detail: `GET ${url} → ${response.status}` };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      return { ready: false, detail: `GET ${url} → ${cause}` };
    }
  };
}

/** Ready when every probe is, checked in order (the first not-ready one explains why). */
export function allOf(...probes: ReadinessProbe[]): ReadinessProbe {
  return async () => {
    const details: string[] = [];
    for (const probe of probes) {
      const result = await probe();
      if (!result.ready) return result;
      details.push(result.detail);
    }
    return { ready: true, detail: details.join("; ") };
  };
}

/** A child without an endpoint: ready once it has stayed alive this long. */
export function aliveForProbe(startedAt: () => number, minimumMs: number): ReadinessProbe {
  return async () => {
    const alive = Date.now() - startedAt();
    return { ready: alive >= minimumMs, detail: alive >= minimumMs ? `running for ${alive} ms` : "just started" };
  };
}
