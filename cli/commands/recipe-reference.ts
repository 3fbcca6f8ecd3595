// `openclaw-rl recipe-reference [--write FILE]`: prints (or writes) the recipe reference generated from the schema.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { renderRecipeReference } from "../recipe-reference.ts";

export function registerRecipeReferenceCommand(program: Command): void {
  program
    .command("recipe-reference")
    .description("Print the recipe reference (every key, its type, default and description), generated from the schema")
    .option("--write <file>", "write it to FILE instead of printing it")
    .action((options: { write?: string }) => {
      const text = renderRecipeReference();
      if (options.write) writeFileSync(options.write, text);
      else process.stdout.write(text);
    });
}
