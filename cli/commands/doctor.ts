// `openclaw-rl doctor [--json]`: checks this machine against the recipe (GPUs, the slime Python, the installed
// slime and SGLang, checkpoints, ports, disk) and prints each result with a fix. Exit 1 when a required check
// fails; changes nothing.
import path from "node:path";
import type { Command } from "commander";
import { reportLine } from "../../launchers/checks/check-result.ts";
import { runDoctor, type DoctorReport } from "../../launchers/checks/doctor.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { PACKAGE_ROOT } from "../recipe-file.ts";

export const EXIT_CHECK_FAILED = 1;

interface DoctorOptions extends CommonOptions {
  json?: boolean;
}

export function registerDoctorCommand(program: Command): void {
  withRecipeOptions(program.command("doctor"))
    .description("Check this machine against the recipe: GPUs, Python packages, the installed slime and SGLang, checkpoints, ports, disk")
    .option("--json", "print the results as JSON")
    .action(async (options: DoctorOptions) => {
      const { recipe, file } = recipeFromOptions(options);
      const report = await runDoctor(recipe, { cwd: process.cwd(), packageRoot: PACKAGE_ROOT, environment: process.env });
      const header = `openclaw-rl doctor: recipe ${path.relative(process.cwd(), file) || file}${recipe.name ? ` (${recipe.name})` : ""}, engine ${recipe.engine.kind}`;
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(header, report));
      if (!report.ok) process.exitCode = EXIT_CHECK_FAILED;
    });
}

function formatReport(header: string, report: DoctorReport): string {
  const lines = [header];
  for (const result of report.results) {
    lines.push(`  ${result.status.padEnd(5)} ${result.id.padEnd(11)} ${reportLine(result)}`);
    if (result.fix && result.status !== "pass") lines.push(`  ${"".padEnd(5)} ${"".padEnd(11)} fix: ${result.fix}`);
  }
  for (const note of report.notApplicable) lines.push(`  note  ${note}`);
  const failures = report.results.filter((result) => result.status === "fail").length;
  lines.push(failures === 0 ? "result: every required check passed" : `result: ${failures} required check(s) failed`);
  return `${lines.join("\n")}\n`;
}
