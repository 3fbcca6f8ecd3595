// The `sink.kind: jsonl` SampleSink: each sample one line of a durable JSONL file (JsonlAppendFile); collect samples
// now, train on them later. No reading back.
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import type { Sample } from "../../contracts/sample.ts";
import type { PutOutcome, SampleSink } from "../../contracts/sample-sink.ts";
import { JsonlAppendFile } from "../records/jsonl-append-file.ts";

/** sink.kind jsonl: each sample one JSON line in sink.path. */
export class JsonlSink implements SampleSink {
  private readonly file: JsonlAppendFile;

  /** The sink of a recipe with sink.kind jsonl; a relative sink.path is inside records.dir. */
  static fromRecipe(recipe: Recipe): JsonlSink {
    if (!recipe.sink.path) throw new OpenclawRlError("RECIPE_INVALID", "sink.kind is jsonl, so sink.path (a JSONL file) is required", { path: "sink.path" });
    return new JsonlSink(path.resolve(recipe.records.dir, recipe.sink.path));
  }

  constructor(file: string) {
    this.file = new JsonlAppendFile(file);
  }

  get path(): string {
    return this.file.file;
  }

  async put(sample: Sample): Promise<PutOutcome> {
    await this.file.append(sample);
    return "stored"; // (no reading back: a JSONL sink keeps every line it is given)
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
