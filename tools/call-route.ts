// Follows one value through the static call graph (Class.method:parameter) and prints its route through files: each
// stay (a run of calls inside one file), the files entered and the returns to a file already visited. A call is
// followed when an argument mentions the value (or a local made from it); the callee's parameter then carries it.
// Ignores calls it cannot resolve to a body in the project (interface members, node_modules, lib/, contracts/).
// Usage: npx tsx tools/call-route.ts [ROOT] [FILE] [Class.method:parameter] [FILE_DEPTH]
//   (default: . orchestrator/judging/judge-pipeline.ts JudgePipeline.onTurnClosed:turn, any depth). FILE_DEPTH stops
//   at calls that would make that many files open at once (3: the pipeline, its collaborators and theirs).
import path from "node:path";
import ts from "typescript";

const [root = ".", file = "orchestrator/judging/judge-pipeline.ts", entry = "JudgePipeline.onTurnClosed:turn", depthArgument = "0"] = process.argv.slice(2);
const rootDir = path.resolve(root);
const maxFileDepth = Number(depthArgument) || Infinity;
const config = ts.getParsedCommandLineOfConfigFile(path.join(rootDir, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();

type Body = ts.FunctionLikeDeclaration & { body: ts.Node };

/** The function, method or arrow function a call lands in, when its body is in the project. */
function target(call: ts.CallExpression | ts.NewExpression): Body | null {
  let symbol = checker.getSymbolAtLocation(ts.isCallExpression(call) ? (ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression) : call.expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  for (const declaration of symbol?.declarations ?? []) {
    const source = declaration.getSourceFile().fileName;
    if (!source.startsWith(rootDir) || source.includes("node_modules") || source.endsWith(".d.ts")) continue;
    if (ts.isClassDeclaration(declaration)) {
      const constructor = declaration.members.find(ts.isConstructorDeclaration);
      if (constructor?.body) return constructor as Body;
    }
    if (ts.isFunctionLike(declaration) && "body" in declaration && declaration.body) return declaration as Body;
    if (ts.isVariableDeclaration(declaration) && declaration.initializer && ts.isArrowFunction(declaration.initializer)) return declaration.initializer as Body;
  }
  return null;
}

function relative(node: ts.Node): string {
  return path.relative(rootDir, node.getSourceFile().fileName);
}

function name(node: Body): string {
  const owner = node.parent && ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : "";
  return owner + (node.name ? node.name.getText() : ts.isConstructorDeclaration(node) ? "constructor" : "(arrow)");
}

const route: { file: string; via: string }[] = [];
function enter(file: string, via: string): void {
  if (route.at(-1)?.file !== file) route.push({ file, via });
}

/** Whether the expression mentions one of the names that carry the value. */
function mentions(node: ts.Node, carriers: Set<string>): boolean {
  if (ts.isIdentifier(node) && carriers.has(node.text) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) return true;
  return ts.forEachChild(node, (child) => mentions(child, carriers) || undefined) ?? false;
}

/** The value enters the body's file; its calls that carry the value are walked in source order (then back here). */
function walk(body: Body, carriers: Set<string>, stack: Set<Body>, fileDepth = 1): void {
  const file = relative(body);
  enter(file, name(body));
  if (file.startsWith("lib/") || file.startsWith("contracts/")) return;
  const visit = (node: ts.Node): void => {
    ts.forEachChild(node, visit);
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && mentions(node.initializer, carriers)) carriers.add(node.name.text);
    if (!ts.isCallExpression(node) && !ts.isNewExpression(node)) return;
    const callee = target(node);
    if (!callee || stack.has(callee)) return;
    const carried = new Set<string>();
    (node.arguments ?? []).forEach((argument, index) => {
      const parameter = callee.parameters[Math.min(index, callee.parameters.length - 1)];
      if (parameter && mentions(argument, carriers)) for (const element of names(parameter.name)) carried.add(element);
    });
    if (carried.size === 0) return;
    const depth = relative(callee) === file ? fileDepth : fileDepth + 1;
    if (depth > maxFileDepth) return;
    stack.add(callee);
    walk(callee, carried, stack, depth);
    stack.delete(callee);
    enter(file, name(body));
  };
  visit(body.body);
}

/** The names a parameter binds (destructured ones too). */
function names(binding: ts.BindingName): string[] {
  if (ts.isIdentifier(binding)) return [binding.text];
  return binding.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : names(element.name)));
}

const [className, rest = ""] = entry.split(".");
const [method, parameter] = rest.split(":");
const source = program.getSourceFile(path.join(rootDir, file));
let start: Body | undefined;
source?.forEachChild((node) => {
  if (ts.isClassDeclaration(node) && node.name?.text === className) start = node.members.find((member) => ts.isMethodDeclaration(member) && member.name.getText() === method) as Body | undefined;
});
if (!start) throw new Error(`${entry} not found in ${file}`);
walk(start, new Set(parameter ? [parameter] : names(start.parameters[0]!.name)), new Set([start]));

const files = new Set(route.map((stay) => stay.file));
const entries = new Map<string, number>();
for (const stay of route) entries.set(stay.file, (entries.get(stay.file) ?? 0) + 1);
route.forEach((stay, index) => console.log(`${String(index + 1).padStart(3)} ${stay.file}  (${stay.via})`));
console.log(`\n${route.length} stays in ${files.size} files, ${route.length - files.size} returns to a file already visited`);
console.log([...entries].sort((a, b) => b[1] - a[1]).map(([name, count]) => `${count}× ${name}`).join("\n"));
