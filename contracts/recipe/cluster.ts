// The recipe's `cluster` section: nodes, GPU counts and parallel sizes. Ignores placement checks (launchers/placement.ts).
import { z } from "zod";
import { port, positiveInt } from "./scalars.ts";

export const clusterSchema = z
  .object({
    nodes: positiveInt.default(1).describe("Number of nodes (the head plus workers that `npx openclaw-rl join`)."),
    gpus_per_node: positiveInt.default(8).describe("GPUs on each node."),
    actor_gpus: positiveInt.default(4).describe("GPUs for the Megatron/FSDP trainer (in total, across nodes)."),
    rollout_gpus: positiveInt.default(2).describe("GPUs for the policy SGLang engines."),
    prm_gpus: z.number().int().min(0).default(2).describe("GPUs for the judge engines (0 when the judge is external)."),
    actor_tp: positiveInt.default(4).describe("Megatron tensor parallel size of the trainer."),
    actor_pp: positiveInt.default(1).describe("Megatron pipeline parallel size."),
    actor_cp: positiveInt.default(1).describe("Megatron context parallel size."),
    rollout_tp: positiveInt.default(2).describe("Tensor parallel size of each policy engine (--rollout-num-gpus-per-engine)."),
    prm_tp: positiveInt.default(2).describe("Tensor parallel size of each judge engine (--prm-num-gpus-per-engine)."),
    head_address: z.string().default("127.0.0.1").describe("IP of the head node (Ray --node-ip-address; workers join it)."),
    ray_port: port.default(6379).describe("Ray GCS port on the head."),
    dashboard_port: port.default(8265).describe("Ray dashboard / job API port on the head."),
  })
  .strict()
  .prefault({});
