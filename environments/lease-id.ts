// The lease ids a client sees, as the reference's terminal router gives and reads them (lease-protocol-answers.json):
// "<worker index>:<the pool's lease>", one worker here (index 0, or -1 as Python indexes it), its errors in Python's words.
// Knows nothing of which leases are live: the lease table does.

/** The router's form of a pool lease. */
export function encodeLeaseId(poolLease: string): string {
  return `0:${poolLease}`;
}

export type DecodedLeaseId = { ok: true; poolLease: string } | { ok: false; error: string };

/**
 * The pool's lease in a client's lease id, as the reference's router reads it (decode_lease, worker_url): no ":" is
 * "substring not found", an index that is not an int is int()'s ValueError, an index past the workers is "list index
 * out of range", all behind "Invalid lease_id format: ".
 */
export function decodeLeaseId(leaseId: string): DecodedLeaseId {
  const separator = leaseId.indexOf(":");
  if (separator < 0) return { ok: false, error: "Invalid lease_id format: substring not found" };
  const index = leaseId.slice(0, separator);
  // Python's int(): surrounding whitespace, a sign, digits with single underscores between them
  if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(index)) return { ok: false, error: `Invalid lease_id format: invalid literal for int() with base 10: ${pythonRepr(index)}` };
  const worker = Number(index.replace(/_/g, "").trim());
  if (worker !== 0 && worker !== -1) return { ok: false, error: "Invalid lease_id format: list index out of range" };
  return { ok: true, poolLease: leaseId.slice(separator + 1) };
}

/** What the pool answers for a lease it does not hold: str() of its KeyError, which is repr() of the message in the reference's pool. */
export function unknownLeaseError(poolLease: string): string {
  return pythonRepr(`Unknown run_lease_id: ${poolLease}`);
}

/** Python's repr() of a str: single quotes unless the text has ' and no ", then double; backslashes and controls escaped. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/[\\\n\r\t]|[\x00-\x1f\x7f]/g, (character) => {
    const named: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
    return named[character] ?? `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
  return `${quote}${quote === "'" ? escaped.replaceAll("'", "\\'") : escaped}${quote}`;
}
