// What the output parsers hand on as the answer is decoded: reasoning and content text, a tool call's start (its id
// and name) and pieces of its arguments, in the order a client receives them. Ignores how any API writes them.
export type OutputDelta =
  | { kind: "reasoning"; text: string }
  | { kind: "content"; text: string }
  | { kind: "tool-call-start"; index: number; id: string; name: string }
  | { kind: "tool-call-arguments"; index: number; text: string };
