// What the checks read from a probe's output: its last line (a report, or the error worth showing) and JSON that
// may not be JSON. Ignores running the probe.

/** The last non-empty line, cut to `max` characters. */
export function lastLine(text: string, max = 300): string {
  return (text.trim().split("\n").pop() ?? "").slice(0, max);
}

/** The parsed JSON, or null when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
