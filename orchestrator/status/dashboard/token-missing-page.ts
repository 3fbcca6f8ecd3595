// The page the dashboard serves to a browser that came without the admin token (or with a wrong one): what this is
// and how to open it. Static text and the run folder, escaped; nothing of the run's state.

export interface TokenMissingPageInput {
  /** The run folder (records.dir): `status --run` reads the token and prints the link from it. */
  recordsDir: string;
  /** A token was given and refused (start makes a new one each time), rather than none given. */
  given: boolean;
}

export function tokenMissingPage(input: TokenMissingPageInput): string {
  const folder = escapeHtml(input.recordsDir);
  const why = input.given
    ? "The admin token in this link was refused: each <code>start</code> makes a new one, so a link from an earlier run no longer opens it."
    : "This page needs the run's admin token, which this link does not carry.";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>openclaw-rl · dashboard: open it with its link</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:44em;margin:3em auto;padding:0 1em;color:#222}code{background:#f2f2f2;padding:0 .3em;border-radius:3px}pre{background:#f2f2f2;padding:.6em;overflow-x:auto}</style>
</head>
<body>
<h1>openclaw-rl dashboard</h1>
<p>${why}</p>
<p>Open it with the link <code>npx openclaw-rl start</code> printed in its banner (the dashboard line: its address ends in <code>?token=…</code>), or ask the running start for it:</p>
<pre>npx openclaw-rl status --run ${folder}</pre>
<p>which prints the same link on its <code>dashboard</code> line. The token is also in <code>${folder}/admin-token</code>.</p>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
