// `openclaw-rl recipe-reference [--write FILE]`: prints (or writes) the recipe reference generated from the schema.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { OpenclawRlError, osReason } from "../../contracts/errors.ts";
import { renderRecipeReference } from "../recipe-reference-markdown.ts";

export function registerRecipeReferenceCommand(program: Command): void {
  program
    .command("recipe-reference")
    .description("Print the recipe reference (every key, its type, default and description), generated from the schema")
    .option("--write <file>", "write it to FILE instead of printing it")
    .action((options: { write?: string }) => {
      const text = renderRecipeReference();
      if (options.write) writeReference(options.write, text);
      else process.stdout.write(text);
    });
}

function writeReference(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (cause) {
    throw new OpenclawRlError("PATH_UNWRITABLE", `cannot write ${file}: ${osReason(cause)}`, {
      path: "--write",
      cause,
      hint: `check that the folder ${path.dirname(path.resolve(file))} exists and that you can write there, or leave out --write to print the reference`,
    });
  }
}
