// The dependency rule of docs/architecture.md, read from the sources: cli → launchers | orchestrator | rehearsal |
// environments → lib → contracts (each folder imports only itself and what is to its right), and no import circle.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const MAY_IMPORT: Record<string, readonly string[]> = {
  cli: ["cli", "launchers", "orchestrator", "rehearsal", "environments", "lib", "contracts"],
  launchers: ["launchers", "lib", "contracts"],
  orchestrator: ["orchestrator", "lib", "contracts"],
  rehearsal: ["rehearsal", "lib", "contracts"],
  environments: ["environments", "lib", "contracts"],
  lib: ["lib", "contracts"],
  contracts: ["contracts"],
};

interface Edge {
  target: string;
}

function sources(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(folder, file));
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC = /import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function edgesOf(file: string): Edge[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const resolve = (specifier: string) => path.normalize(path.join(path.dirname(file), specifier));
  return [
    ...[...text.matchAll(IMPORT)].map((match) => ({ target: resolve(match[3]!) })),
    ...[...text.matchAll(DYNAMIC)].map((match) => ({ target: resolve(match[1]!) })),
  ];
}

const graph = new Map(Object.keys(MAY_IMPORT).flatMap(sources).map((file) => [file, edgesOf(file)] as const));

/** Circles of imports, type-only ones included (a circle of types still ties two files' designs together). */
function circles(): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (file: string, stack: string[]) => {
    const at = stack.indexOf(file);
    if (at >= 0) return void found.push([...stack.slice(at), file]);
    if (done.has(file)) return;
    stack.push(file);
    for (const edge of graph.get(file) ?? []) if (graph.has(edge.target)) visit(edge.target, stack);
    stack.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

describe("the dependency rule", () => {
  it("reads every source folder (the rule covers the code)", () => {
    for (const folder of Object.keys(MAY_IMPORT)) expect(sources(folder).length, folder).toBeGreaterThan(0);
  });

  it("each folder imports only itself and the layers below it", () => {
    const breaches = [...graph].flatMap(([file, edges]) =>
      edges.filter((edge) => !MAY_IMPORT[file.split(path.sep)[0]!]!.includes(edge.target.split(path.sep)[0]!)).map((edge) => `${file} → ${edge.target}`),
    );
    expect(breaches).toEqual([]);
  });

  it("contracts import nothing but zod and each other", () => {
    const packages = sources("contracts").flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/from\s+["']([^."'][^"']*)["']/g)].map((match) => match[1]),
    );
    expect(new Set(packages)).toEqual(new Set(["zod"]));
  });

  it("no import circle, not even of types", () => {
    expect(circles().map((circle) => circle.join(" → "))).toEqual([]);
  });

  it("tools import the sources, never the tests", () => {
    const tools = sources("tools");
    expect(tools.length).toBeGreaterThan(0);
    const intoTests = tools.flatMap((file) => edgesOf(file).filter((edge) => edge.target.split(path.sep)[0] === "tests").map((edge) => `${file} → ${edge.target}`));
    expect(intoTests).toEqual([]);
  });
});
