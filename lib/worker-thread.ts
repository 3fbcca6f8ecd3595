// Our TypeScript worker threads (prompt building, judging): starting one under tsx's loader, and the
// plain arrays that typed arrays become again after crossing a thread boundary.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** The worker bootstrap: register tsx's loader in the worker, then import the TypeScript entry. Throws without tsx. */
function bootstrap(entry: URL): string {
  const require = createRequire(import.meta.url);
  const tsxFolder = path.dirname(require.resolve("tsx/package.json"));
  const exports = (JSON.parse(readFileSync(path.join(tsxFolder, "package.json"), "utf8")) as { exports: Record<string, { import?: { default?: string } }> }).exports;
  const api = pathToFileURL(path.join(tsxFolder, exports["./esm/api"]?.import?.default ?? "dist/esm/api/index.mjs")).href;
  return `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
}

/** A worker thread running the TypeScript module `entry` (a file URL) with `workerData`. */
export function startTsWorker(entry: URL, workerData: unknown): Worker {
  return new Worker(bootstrap(entry), { eval: true, workerData });
}

/** A plain array of the values (a counted loop: several times faster than Array.from's iterator on 10K+ values). */
export function plainArray(values: Int32Array | Float64Array): number[] {
  const out = new Array<number>(values.length);
  for (let index = 0; index < values.length; index++) out[index] = values[index]!;
  return out;
}
