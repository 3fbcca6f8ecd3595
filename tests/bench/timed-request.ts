// One timed POST of the benches' client: the whole answer's time, or the time to the first part of the body that
// carries generated text. A keep-alive pool of node:http (a fraction of fetch's CPU, on a machine shared with the server).
import { Agent, request as httpRequest } from "node:http";

const clientAgent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** Tells whether a part of a 200 answer's body carries generated text; `null` times the whole answer. */
export type FirstTextTest = ((part: string) => boolean) | null;

/** The answer's time (ms) to the first part `firstText` accepts, or to its end; refused on a non-200 or when no part is. */
export function timedRequest(url: string, body: string, firstText: FirstTextTest, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = httpRequest(url, { method: "POST", agent: clientAgent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } });
    outgoing.once("error", reject);
    outgoing.once("response", (response) => {
      let firstAt = -1;
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (part: string) => {
        if (response.statusCode !== 200) text += part;
        else if (firstText && firstAt < 0 && firstText(part)) firstAt = performance.now();
      });
      response.once("end", () => {
        if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}: ${text.slice(0, 300)}`));
        else if (!firstText) resolve(performance.now() - started);
        else if (firstAt > 0) resolve(firstAt - started);
        else reject(new Error(`${url} answered 200 without generated text`));
      });
    });
    outgoing.end(body);
  });
}
