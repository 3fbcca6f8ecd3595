// Shared test helpers for loopback servers: a free ephemeral port on 127.0.0.1, and a bounded wait for a probe.
import { createServer } from "node:net";

/** Ports freePort handed out in this process: the kernel may give a just-closed port again to the next bind(0). */
const given = new Set<number>();

/** A free port on 127.0.0.1, never one this process was given before (two calls for two servers get two ports). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const { port: bound } = server.address() as { port: number };
        server.close(() => resolve(bound));
      });
    });
    if (!given.has(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error("freePort: 50 ports in a row were ones already given out");
}

/** Polls `probe` every 250 ms until it returns a non-null value (errors count as null); throws after timeoutMs. */
export async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
