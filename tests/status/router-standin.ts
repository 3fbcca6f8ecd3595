// Stand-ins for the weight-version routes of slime's router and of SGLang engines, built from the route facts in
// tests/fixtures/sglang/weight-version-routes.json: the router has exactly its route table (404, empty body, for
// the rest), the engines answer /model_info and /get_weight_version as the commit they mirror does.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const facts = JSON.parse(readFileSync(new URL("../fixtures/sglang/weight-version-routes.json", import.meta.url), "utf8")) as {
  router: { dce8b060: { routes: Array<[string, string]>; worker_example: Record<string, unknown> } };
};

export const ROUTER_ROUTES: ReadonlyArray<[string, string]> = facts.router.dce8b060.routes;

export interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void | Promise<void>): Promise<Listening & { server: Server }> {
  const server = createServer((request, response) => void Promise.resolve(handler(request, response)).catch(() => response.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** An SGLang engine at `commit`: /model_info carries weight_version on both; /get_weight_version is a 404 at 4ad990ba. */
export function startEngine(commit: "dce8b060" | "4ad990ba", version: { current: string }): Promise<Listening> {
  return listen((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET") return json(response, 404, { detail: "Not Found" });
    if (path === "/model_info" || path === "/get_model_info") {
      return json(response, 200, {
        model_path: "/models/qwen3-4b",
        tokenizer_path: "/models/qwen3-4b",
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: version.current,
        has_image_understanding: false,
        has_audio_understanding: false,
        model_type: "qwen3",
        architectures: ["Qwen3ForCausalLM"],
      });
    }
    if (path === "/get_weight_version" || path === "/weight_version") {
      if (commit === "4ad990ba") return json(response, 404, { detail: "Endpoint '/get_weight_version' or '/weight_version' is deprecated. Please use '/model_info' instead." });
      return json(response, 200, { weight_version: version.current });
    }
    return json(response, 404, { detail: "Not Found" });
  });
}

/**
 * sgl-model-gateway at dce8b060 in front of `workers`: GET /workers lists them, /get_model_info and /get_server_info
 * go to the first worker only, the other routes of its table answer as a router would without reaching a worker
 * (200 {}), and everything else is its fallback: 404 with an empty body.
 */
export function startRouter(workers: readonly string[]): Promise<Listening> {
  const known = new Set(ROUTER_ROUTES.map(([method, path]) => `${method} ${path}`));
  return listen(async (request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    const key = `${request.method} ${path}`;
    if (!known.has(key)) return void response.writeHead(404).end();
    if (key === "GET /workers") {
      const listed = workers.map((url, index) => ({ ...facts.router.dce8b060.worker_example, id: `worker-${index}`, url }));
      return json(response, 200, { workers: listed, total: listed.length, stats: { prefill_count: 0, decode_count: 0, regular_count: listed.length } });
    }
    if (key === "GET /get_model_info" || key === "GET /get_server_info") {
      const upstream = await fetch(`${workers[0]}${path}`);
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
      return;
    }
    if (key === "GET /health" || key === "GET /liveness") return void response.writeHead(200).end("OK");
    json(response, 200, {});
  });
}
