// Binds an HTTP server to its port: resolves once it listens, rejects with a typed PORT_IN_USE naming the recipe key
// when the port is taken (and, through `refine`, with the caller's own error for other socket errors it knows).
import type { Server } from "node:http";
import { OpenclawRlError } from "../../contracts/errors.ts";

export interface ListenOptions {
  port: number;
  host: string;
  /** The recipe key that gives the port (named in the error). */
  key: string;
  /** What to do about a taken port. */
  hint: string;
  /** The caller's error for another socket error, or undefined to reject with the error as it is. */
  refine?: (error: NodeJS.ErrnoException) => Error | undefined;
}

export function listen(server: Server, options: ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off("listening", onListening);
      if (error.code === "EADDRINUSE") {
        return reject(new OpenclawRlError("PORT_IN_USE", `port ${options.port} on ${options.host} is in use (${options.key})`, { path: options.key, hint: options.hint, cause: error }));
      }
      reject(options.refine?.(error) ?? error);
    };
    const onListening = (): void => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(options.port, options.host);
  });
}
