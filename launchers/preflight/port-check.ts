// Is a TCP port free to bind on a host? Binds and closes at once; never connects to or disturbs whoever
// holds it. Knows nothing of which port means what (preflight.ts names them).
import { createServer } from "node:net";

export type PortCheck = { free: true } | { free: false; code: string };

export function checkPort(port: number, host = "127.0.0.1"): Promise<PortCheck> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", (error: NodeJS.ErrnoException) => resolve({ free: false, code: error.code ?? "ERROR" }));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve({ free: true })));
  });
}
