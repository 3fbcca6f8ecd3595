// The name a request's client goes by in status counts: the product of its User-Agent ("codex_exec" for `codex exec`, "claude-cli",
// "QwenCode", "OpenAI/JS" for the openai SDK OpenClaw uses). Ignores versions and platform details.

/** The User-Agent's first product name (with the SDK's flavour where it has one, "OpenAI/JS"), or "unknown". */
export function clientLabel(userAgent: string | undefined): string {
  const text = userAgent?.trim() ?? "";
  if (text.length === 0) return "unknown";
  const sdk = /^(OpenAI\/[A-Za-z]+|Anthropic\/[A-Za-z]+)\b/.exec(text);
  if (sdk) return sdk[1]!;
  const product = /^[^\s/;()]+/.exec(text);
  return product ? product[0].slice(0, 40) : "unknown";
}
