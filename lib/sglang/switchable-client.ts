// An SglangClient whose base URL can move: slime announces its routers only once the job runs, so the
// policy and judge clients are re-pointed when the rollout function's hello arrives.
import { SglangClient } from "./sglang-client.ts";

export class SwitchableClient {
  readonly client: SglangClient;
  private current: SglangClient;

  constructor(baseUrl: string | null, private readonly timeoutMs: number) {
    // Until a router is announced, calls go to a closed loopback port and fail as ENGINE_UNAVAILABLE (retryable);
    // the proxy's gate answers 503 before they are made.
    this.current = new SglangClient({ baseUrl: baseUrl ?? "http://127.0.0.1:9", timeoutMs });
    const self = this;
    this.client = new Proxy({} as SglangClient, {
      get(_target, key) {
        const value = Reflect.get(self.current, key, self.current) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(self.current) : value;
      },
    });
  }

  point(baseUrl: string): void {
    if (this.current.baseUrl !== baseUrl.replace(/\/+$/, "")) this.current = new SglangClient({ baseUrl, timeoutMs: this.timeoutMs });
  }
}
