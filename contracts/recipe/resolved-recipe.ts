// The resolved recipe: the parsed keys plus the values derived from several of them, computed once when the recipe is
// parsed, so every reader takes the same answer from `recipe.derived`. Ignores the checks that refuse a recipe.
import type { StreamForm } from "../sglang.ts";
import { streamFormOf } from "./engine-slime.ts";
import { usesOpdTeacher } from "./method.ts";
import type { RecipeSettings } from "./settings.ts";
import { hybridTrainerGap, trainerTeacherGap } from "./teacher-gaps.ts";
import { trainingBackend } from "./training.ts";

/** What the recipe implies beyond its keys; each value names the keys it comes from. */
export interface RecipeDerivedValues {
  /** The external judge's base URL: judge.url, else engine.judge_url; null when neither is set. */
  judgeUrl: string | null;
  /**
   * Where the orchestrator reaches the engines: the stand-ins' loopback ports (rehearsal), engine.policy_url and
   * judgeUrl (external); on slime the standalone judge's loopback port or judgeUrl, else null: the router slime
   * announces on the bridge.
   */
  engineUrls: { policy: string | null; judge: string | null };
  /** The judge's checkpoint: judge.path, else model.path. */
  judgePath: string;
  /** The backend that will train: training.backend, else fsdp with training.lora, else megatron. */
  trainingBackend: "megatron" | "fsdp";
  /** --max-tokens-per-gpu: training.max_tokens_per_gpu, else 32768 (megatron) or 8192 (fsdp). */
  maxTokensPerGpu: number;
  /** The trainer's frozen reference and teacher checkpoint (slime's --ref-load): training.ref_load, else model.path. */
  referenceModelPath: string;
  /**
   * Where the teacher's log-probs are computed: the trainer for the hybrid; else opd.teacher when set, else the
   * trainer wherever it can run it (trainerTeacherGap null), else the judge engine.
   */
  teacher: "engine" | "trainer";
  /** The temperature the teacher's log-probs are scored at: opd.teacher_temperature, else sampling.temperature. */
  teacherTemperature: number;
  /** Why the trainer cannot run opd's teacher (opd.teacher trainer) with this recipe; null when it can. */
  trainerTeacherGap: string | null;
  /** Why the trainer cannot run the hybrid's teacher with this recipe; null when it can (whatever the method). */
  hybridTrainerGap: string | null;
  /** The hybrid's vote counts per turn: hybrid.hint_votes and hybrid.eval_votes, each judge.votes when unset. */
  hybridVotes: { hint: number; evaluation: number };
  /** Whether `start` runs episodes: episodes.env_url or episodes.environment is set. */
  episodesOn: boolean;
  /** The environment server's base URL: episodes.env_url, or the built-in one's loopback address; null when off. */
  environmentUrl: string | null;
  /** Which environment episodes run in, as named in the recipe: episodes.environment, else episodes.env_url; null when off. */
  environmentName: string | null;
  /** How the stand-in policy streams: engine.rehearsal.stream_form, else the form the slime flavour's SGLang uses. */
  standinStreamForm: StreamForm;
  /**
   * What the trainer starts from: slime resumes training.load_dir when set, else loads model.path; the stand-in trainer
   * keeps no checkpoint, so rehearsal starts from the base weights every time. Null for an external trainer (unknown).
   */
  startingWeights: { kind: "base" | "checkpoint"; path: string } | null;
}

/** A parsed recipe: its keys and, under `derived`, the values they imply. */
export type ResolvedRecipe = RecipeSettings & { readonly derived: RecipeDerivedValues };

/** Adds the derived values to parsed keys (a recipe already resolved is resolved afresh from its keys). */
export function resolveRecipe(settings: RecipeSettings): ResolvedRecipe {
  const { derived: _stale, ...keys } = settings as RecipeSettings & { derived?: RecipeDerivedValues };
  const backend = trainingBackend(keys);
  const trainerGap = trainerTeacherGap(keys);
  const judgeUrl = keys.judge.url ?? keys.engine.judge_url ?? null;
  const episodes = keys.episodes;
  const builtIn = episodes.environment ? `http://127.0.0.1:${episodes.environment_port}` : null;
  return {
    ...keys,
    derived: {
      judgeUrl,
      engineUrls: engineUrls(keys, judgeUrl),
      judgePath: keys.judge.path ?? keys.model.path,
      trainingBackend: backend,
      maxTokensPerGpu: keys.training.max_tokens_per_gpu ?? (backend === "megatron" ? 32768 : 8192),
      referenceModelPath: keys.training.ref_load ?? keys.model.path,
      teacher: teacherPlace(keys, trainerGap),
      teacherTemperature: keys.opd.teacher_temperature ?? keys.sampling.temperature,
      trainerTeacherGap: trainerGap,
      hybridTrainerGap: hybridTrainerGap(keys),
      hybridVotes: { hint: keys.hybrid.hint_votes ?? keys.judge.votes, evaluation: keys.hybrid.eval_votes ?? keys.judge.votes },
      episodesOn: episodes.env_url !== undefined || episodes.environment !== undefined,
      environmentUrl: episodes.env_url ?? builtIn,
      environmentName: episodes.environment ?? episodes.env_url ?? null,
      standinStreamForm: keys.engine.rehearsal.stream_form ?? streamFormOf(keys.engine.slime),
      startingWeights: startingWeights(keys),
    },
  };
}

/** The recipe's keys without the derived values: what `recipe.resolved.yaml` holds and parses back from. */
export function recipeSettingsOf(recipe: ResolvedRecipe): RecipeSettings {
  const { derived: _derived, ...keys } = recipe;
  return keys;
}

function engineUrls(recipe: RecipeSettings, judgeUrl: string | null): { policy: string | null; judge: string | null } {
  const loopback = (port: number) => `http://127.0.0.1:${port}`;
  switch (recipe.engine.kind) {
    case "rehearsal":
      return { policy: loopback(recipe.engine.rehearsal.policy_port), judge: loopback(recipe.engine.rehearsal.judge_port) };
    case "external":
      return { policy: recipe.engine.policy_url ?? null, judge: judgeUrl };
    case "slime":
      if (recipe.judge.launch === "standalone") return { policy: null, judge: loopback(recipe.judge.port) };
      return { policy: null, judge: recipe.judge.launch === "external" ? judgeUrl : null };
  }
}

function startingWeights(recipe: RecipeSettings): RecipeDerivedValues["startingWeights"] {
  if (recipe.engine.kind === "external") return null;
  if (recipe.engine.kind === "slime" && recipe.training.load_dir) return { kind: "checkpoint", path: recipe.training.load_dir };
  return { kind: "base", path: recipe.model.path };
}

function teacherPlace(recipe: RecipeSettings, trainerGap: string | null): "engine" | "trainer" {
  if (recipe.method === "hybrid") return recipe.hybrid.teacher;
  if (recipe.opd.teacher !== undefined) return recipe.opd.teacher;
  return usesOpdTeacher(recipe.method) && trainerGap === null ? "trainer" : "engine";
}
