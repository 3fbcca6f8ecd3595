// Generates the recipe reference (markdown) from the zod schema, so the docs can never drift from the defaults
// and descriptions the code uses. Only rendering; the schema in contracts/recipe/ (one file per section) is the source of truth.
import { z } from "zod";
import { recipeObjectSchema } from "../contracts/recipe.ts";

interface JsonSchemaNode {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  additionalProperties?: JsonSchemaNode | boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

export function renderRecipeReference(): string {
  const root = z.toJSONSchema(recipeObjectSchema, { io: "input", unrepresentable: "any" }) as JsonSchemaNode;
  const lines = [
    "# Recipe reference",
    "",
    "Generated from the zod schema in `contracts/recipe/` (one file per section) by `npx openclaw-rl recipe-reference`; do not edit by hand.",
    "Every key is optional: what you leave out takes the default. Unknown keys are errors that name their YAML path.",
    "",
  ];
  for (const [section, node] of Object.entries(root.properties ?? {})) {
    if (node.type === "object" && node.properties) {
      lines.push(`## \`${section}\``, "", "| key | type | default | description |", "| --- | --- | --- | --- |");
      for (const row of rows(section, node)) lines.push(row);
      lines.push("");
    } else {
      lines.push(`## \`${section}\``, "", `${describe(node)}`, "", `type: ${typeOf(node)}; default: ${defaultOf(node)}`, "");
    }
  }
  lines.push(
    "## Cross-field checks",
    "",
    "Checked after the keys parse (`contracts/recipe/cross-checks.ts` and `flavor-checks.ts`); each message names the YAML path: an external judge needs `judge.url`; `engine.kind: external` needs",
    "`engine.policy_url` and an external judge; `sink.kind: jsonl` needs `sink.path` and an engine other than slime (slime trains from the bridge); `training.eps_clip_high` ≥ `training.eps_clip`; `opd.topk`",
    "only with `method: opd`; `combine.w_rl` and `combine.w_opd` not both 0; `training.kl_coef` > 0 needs `training.use_kl_loss: true`, and not with `opd.topk` > 0 (top-K distillation has no KL term);",
    "LoRA needs the fsdp backend, and the fsdp backend trains `method: binary` only (slime's FSDP actor ignores custom losses and",
    "teacher fields). With `engine.kind: slime`, `engine.slime.flavor: upstream` refuses LoRA / the fsdp backend, `opd.topk` > 0 and",
    "`judge.launch: slime`, and `flavor: fork` refuses `--sglang-incremental-streaming-output`, each naming what to use instead.",
    "GPU placement is checked by `npx openclaw-rl plan`.",
    "",
  );
  return lines.join("\n");
}

function rows(prefix: string, node: JsonSchemaNode): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = `${prefix}.${key}`;
    if (child.type === "object" && child.properties && Object.keys(child.properties).length > 0) {
      out.push(`| \`${path}\` | mapping | | ${escape(describe(child))} |`);
      out.push(...rows(path, child));
    } else {
      out.push(`| \`${path}\` | ${escape(typeOf(child))} | ${escape(defaultOf(child))} | ${escape(describe(child))} |`);
    }
  }
  return out;
}

function typeOf(node: JsonSchemaNode): string {
  if (node.enum) return node.enum.map((value) => String(value)).join(" | ");
  if (node.anyOf) return node.anyOf.map(typeOf).join(" or ");
  if (node.type === "array") return `list of ${node.items ? typeOf(node.items) : "values"}`;
  if (node.type === "object") return "mapping";
  if (node.type === "integer" || node.type === "number") {
    const bounds: string[] = [];
    if (node.exclusiveMinimum !== undefined) bounds.push(`> ${node.exclusiveMinimum}`);
    if (node.minimum !== undefined) bounds.push(`≥ ${node.minimum}`);
    if (node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${node.maximum}`);
    return `${node.type}${bounds.length > 0 ? ` (${bounds.join(", ")})` : ""}`;
  }
  return Array.isArray(node.type) ? node.type.join(" or ") : (node.type ?? "any");
}

function defaultOf(node: JsonSchemaNode): string {
  if (node.default === undefined) return "–";
  if (typeof node.default === "object" && node.default !== null && !Array.isArray(node.default) && Object.keys(node.default).length === 0) return "–";
  return `\`${JSON.stringify(node.default)}\``;
}

function describe(node: JsonSchemaNode): string {
  return node.description ?? "";
}

function escape(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
