// Registers every subcommand; each lives in its own file named after the command.
import type { Command } from "commander";
import { registerAgentConfigCommand } from "./agent-config.ts";
import { registerConvertCheckpointCommand } from "./convert-checkpoint.ts";
import { registerDemoCommand } from "./demo.ts";
import { registerDoctorCommand } from "./doctor.ts";
import { registerEvalCommand } from "./eval.ts";
import { registerJoinCommand } from "./join.ts";
import { registerOpenclawConfigCommand } from "./openclaw-config.ts";
import { registerPlanCommand } from "./plan.ts";
import { registerRecipeReferenceCommand } from "./recipe-reference.ts";
import { registerResumeTrainingCommand } from "./resume-training.ts";
import { registerStartCommand } from "./start.ts";
import { registerStatusCommand } from "./status.ts";

export function registerCommands(program: Command): void {
  registerStartCommand(program);
  registerStatusCommand(program);
  registerPlanCommand(program);
  registerDoctorCommand(program);
  registerOpenclawConfigCommand(program);
  registerAgentConfigCommand(program);
  registerDemoCommand(program);
  registerJoinCommand(program);
  registerRecipeReferenceCommand(program);
  registerConvertCheckpointCommand(program);
  registerEvalCommand(program);
  registerResumeTrainingCommand(program);
}
