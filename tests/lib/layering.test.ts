// The dependency rule of docs/architecture.md, read from the sources: cli → launchers | orchestrator | rehearsal |
// environments → lib → contracts (each folder imports only itself and what is to its right), tools never importing
// tests, no import circle, and the orders inside rehearsal/ and orchestrator/.
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

/** Inside rehearsal/, one folder per actor (docs/architecture.md): each imports only itself and the folders after it. */
const REHEARSAL_ORDER = ["sglang", "judge", "user", "policy", "model"] as const;

describe("the order inside rehearsal/", () => {
  const actorOf = (file: string) => file.split(path.sep)[1]!;
  const actors = (file: string) => file.startsWith(`rehearsal${path.sep}`) && (REHEARSAL_ORDER as readonly string[]).includes(actorOf(file));

  it("every TypeScript file of rehearsal/ sits in an actor's folder", () => {
    const loose = sources("rehearsal").filter((file) => !actors(file));
    expect(loose).toEqual([]);
  });

  it("each actor's folder imports only itself and the folders after it", () => {
    const breaches = [...graph].filter(([file]) => actors(file)).flatMap(([file, edges]) =>
      edges
        .filter((edge) => actors(edge.target) && REHEARSAL_ORDER.indexOf(actorOf(edge.target) as never) < REHEARSAL_ORDER.indexOf(actorOf(file) as never))
        .map((edge) => `${file} → ${edge.target}`),
    );
    expect(breaches).toEqual([]);
  });
});

/**
 * orchestrator/'s own order, top to bottom (docs/architecture.md): a part (a sub-folder, or a file at its top) imports
 * itself and the parts of the layers below it, never a part of its own layer or one above.
 */
const ORCHESTRATOR_LAYERS: ReadonlyArray<readonly string[]> = [
  ["run.ts"], // wires the run
  ["run"], // its larger steps: the run's context, the sample sink, the background episodes, the status API
  ["status"], // reads what every part announces
  ["proxy", "judging", "bridge", "evaluation", "checkpoints"], // the run's parts; run.ts wires them to each other
  ["episodes", "sessions", "store", "sinks"], // what they keep: episodes, sessions, the sample queue, the other sinks
  ["records"], // the run's record files
  ["samples", "weights"], // a sample from a judged turn; the weight version and the staleness rule
  ["prompt", "generation"], // prompt rendering and generation, below the sample they feed
  ["event-bus.ts"],
];
const ORCHESTRATOR_MAY_IMPORT: Record<string, readonly string[]> = Object.fromEntries(
  ORCHESTRATOR_LAYERS.flatMap((layer, index) => layer.map((part) => [part, [part, ...ORCHESTRATOR_LAYERS.slice(index + 1).flat()]])),
);

/** The part of orchestrator/ a path lies in (its sub-folder, or the file itself at the top); null outside it. */
function orchestratorPart(file: string): string | null {
  const [top, part] = file.split(path.sep);
  return top === "orchestrator" && part !== undefined ? part : null;
}

describe("the order inside orchestrator/", () => {
  it("every part of orchestrator/ has its place in the order", () => {
    // (a folder without sources, such as one emptied by a move and left in a checkout, is no part)
    const parts = [...new Set(sources("orchestrator").map((file) => orchestratorPart(file)!))];
    expect(parts.filter((part) => !(part in ORCHESTRATOR_MAY_IMPORT)), "not in ORCHESTRATOR_LAYERS").toEqual([]);
    expect(Object.keys(ORCHESTRATOR_MAY_IMPORT).filter((part) => !parts.includes(part)), "listed but gone").toEqual([]);
  });

  it("each part of orchestrator/ imports only itself and the layers below it", () => {
    const breaches = [...graph].flatMap(([file, edges]) => {
      const from = orchestratorPart(file);
      if (from === null) return [];
      return edges.filter((edge) => {
        const to = orchestratorPart(edge.target);
        return to !== null && !ORCHESTRATOR_MAY_IMPORT[from]!.includes(to);
      }).map((edge) => `${file} → ${edge.target}`);
    });
    expect(breaches).toEqual([]);
  });
});
