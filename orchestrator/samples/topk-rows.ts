// A sample's top-K tables (teacherTopkLogProbs, teacherTopkIndices) as flat arrays, row by row, and back: the form
// both the sample frame and the judging thread's crossing carry them in. Knows nothing of bytes or threads.
import { OpenclawRlError } from "../../contracts/errors.ts";

/**
 * Rows of `width` values (a top-K table) as one array, row by row; BAD_REQUEST naming the first row of another length
 * (`what` starts the message, `path` is the error's path).
 */
export function flattenRows(rows: readonly (readonly number[])[], width: number, what: string, path?: string): number[] {
  const flat = new Array<number>(rows.length * width);
  rows.forEach((row, index) => {
    if (row.length !== width) throw new OpenclawRlError("BAD_REQUEST", `${what}[${index}] has ${row.length} entries, expected ${width}`, { path });
    for (let column = 0; column < width; column++) flat[index * width + column] = row[column]!;
  });
  return flat;
}

/** `count` rows of `width` values read row by row from `values`: the reverse of flattenRows. */
export function splitRows(values: readonly number[], count: number, width: number): number[][] {
  const rows: number[][] = [];
  for (let row = 0; row < count; row++) rows.push(values.slice(row * width, (row + 1) * width));
  return rows;
}
