// Module hooks for the route trace: after tsx has compiled a file of orchestrator/, every function body with braces
// gets a first statement that reports its entry (globalThis.__routeEnter). Other files load unchanged.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = path.resolve(fileURLToPath(import.meta.url), "../../..");

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.startsWith("file:") || !result.source) return result;
  const file = path.relative(ROOT, fileURLToPath(url));
  if (!file.startsWith("orchestrator/") || !file.endsWith(".ts")) return result;
  return { ...result, source: instrument(String(result.source)) };
}

function instrument(source) {
  const tree = ts.createSourceFile("module.js", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const at = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body && ts.isBlock(node.body)) at.push(node.body.getStart(tree) + 1);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  let text = source;
  for (const position of at.sort((a, b) => b - a)) text = `${text.slice(0, position)}globalThis.__routeEnter?.();${text.slice(position)}`;
  return text;
}
