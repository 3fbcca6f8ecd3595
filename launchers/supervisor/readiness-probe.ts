// Readiness probes: small async checks that say ready or not, and why (HTTP status of an endpoint, a Ray
// job's state, a bridge hello). Polling lives in supervised-child.ts; every probe call has a timeout.
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";

export interface ProbeResult {
  ready: boolean;
  /** What was seen: `GET http://127.0.0.1:31000/health_generate → 503`, `job openclaw-rl-1 is PENDING`. */
  detail: string;
}

/** What a probe knows of the process it checks. */
export interface ProbeContext {
  /**
   * When this incarnation of the child was started (ms since the epoch, this process's clock): a sign of life from
   * before then (the bridge hello of the process it replaced) is not one of this incarnation's.
   */
  startedAt: number;
}

export type ReadinessProbe = (context: ProbeContext) => Promise<ProbeResult>;

/**
 * GET `url` on a connection of its own, closed after the answer: a probe never reuses a kept-alive socket, which the
 * engine's server may have closed while this process was not running (a long pause, a heap snapshot) and which
 * would then fail the probe with a reset although the engine is fine. Ready on 2xx; any answer within `timeoutMs`.
 */
export function httpProbe(url: string, timeoutMs = 3000): () => Promise<ProbeResult> {
  const target = new URL(url);
  const get = target.protocol === "https:" ? httpsGet : httpGet;
  return () =>
    new Promise<ProbeResult>((resolve) => {
      let settled = false;
      const finish = (result: ProbeResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        resolve(result);
      };
      const request = get(target, { agent: false, headers: { connection: "close" } }, (response) => {
        const status = response.statusCode ?? 0;
        response.on("error", (error: NodeJS.ErrnoException) => finish({ ready: false, detail: `GET ${url} → ${error.code ?? error.name}` }));
        response.on("end", () => finish({ ready: status >= 200 && status < 300, detail: `GET ${url} → ${status}` }));
        response.resume();
      });
      request.on("error", (error: NodeJS.ErrnoException) => finish({ ready: false, detail: `GET ${url} → ${error.code ?? error.name}` }));
      const timer = setTimeout(() => finish({ ready: false, detail: `GET ${url} → no answer in ${timeoutMs} ms` }), timeoutMs);
    });
}

/** A child without an endpoint: ready once it has stayed alive this long. */
export function aliveForProbe(startedAt: () => number, minimumMs: number): ReadinessProbe {
  return async () => {
    const alive = Date.now() - startedAt();
    return { ready: alive >= minimumMs, detail: alive >= minimumMs ? `running for ${alive} ms` : "just started" };
  };
}
