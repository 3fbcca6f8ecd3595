// strftimePython (transformers' strftime_now) held against Python's datetime.strftime on Debian's /usr/bin/python3:
// random naive local times, every directive with and without flags; no expected value here is written by hand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strftimePython } from "../../lib/model/python-strftime.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { TransformersRenderer } from "../support/transformers-renderer.ts";

const CONVERSIONS = [..."aAbhBcCdDefFGgHIjklmMnpPrRsStTuUVwWxXyYzZ%", "Q", "E"]; // widths (%5d) are not covered
const FORMATS = [
  ...CONVERSIONS.map((conversion) => `%${conversion}`),
  ...[..."deHIjmMSyklUWV"].flatMap((conversion) => ["-", "_", "0"].map((flag) => `%${flag}${conversion}`)),
  "%^a %^B %^p", "%d %b %Y", "%B %d, %Y", "%Y-%m-%d", "Today is %A, %-d %B %Y.", "100%", "%%d", "%", "plain",
];

let python: TransformersRenderer;
beforeAll(() => {
  python = new TransformersRenderer();
});
afterAll(() => python.close());

describe("strftimePython", () => {
  it("formats random naive local times with every directive as Python's datetime.strftime does", async () => {
    const random = seededRandom(3);
    const requests = Array.from({ length: 400 }, (_, index) => {
      const fields = [1970 + random.below(131), 1 + random.below(12), 1 + random.below(28), random.below(24), random.below(60), random.below(60), random.below(1000) * 1000];
      if (index % 8 === 0) [fields[1], fields[2]] = [random.pick([1, 12]), random.pick([1, 2, 3, 4, 29, 30, 31].filter((day) => day <= 31))]; // ISO week edges
      return { strftime: fields, format: FORMATS.join("|") };
    });
    const reference = await python.renderAll(requests);
    for (const [index, { strftime: [year, month, day, hour, minute, second, micro] }] of requests.entries()) {
      const date = new Date(year!, month! - 1, day!, hour!, minute!, second!, micro! / 1000);
      expect({ text: strftimePython(date, FORMATS.join("|")) }, JSON.stringify(requests[index]!.strftime)).toEqual(reference[index]);
    }
  });
});
