// Registers every subcommand; each lives in its own file named after the command.
import type { Command } from "commander";
import { registerDemoCommand } from "./demo.ts";
import { registerDoctorCommand } from "./doctor.ts";
import { registerOpenclawConfigCommand } from "./openclaw-config.ts";
import { registerJoinCommand } from "./join.ts";
import { registerPlanCommand } from "./plan.ts";
import { registerStartCommand } from "./start.ts";
import { registerStatusCommand } from "./status.ts";

export function registerCommands(program: Command): void {
  void program;
  registerPlanCommand(program);
  registerDoctorCommand(program);
  registerOpenclawConfigCommand(program);
  registerDemoCommand(program);
  registerStartCommand(program);
  registerStatusCommand(program);
  registerJoinCommand(program);
}
