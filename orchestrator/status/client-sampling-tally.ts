// Main turns per client (by User-Agent product) and the sampling settings each asked for and did not get, or that
// drew it off-policy: a part of the run tally. Bounded in clients; ignores side turns (run-tally passes main ones).

export interface ClientSampling {
  client: string;
  mainTurns: number;
  /** Main turns whose client asked for sampling the proxy did not use (sampling.client_settings: trainer). */
  askedOtherwise: number;
  /** Main turns drawn off the trainer's distribution (honoured settings, a tool_choice grammar): never trained. */
  offPolicy: number;
  /** Of askedOtherwise, how many asked for each setting. */
  asked: Record<string, number>;
}

/** Clients told apart (names come from User-Agent headers: a bound against a client that varies it). */
const MAX_CLIENTS = 32;

export class ClientSamplingTally {
  private readonly clients = new Map<string, Omit<ClientSampling, "client">>();

  /** A main turn of `client`, with the settings it asked for and did not get (by key). */
  count(client: string, asked: Record<string, number> | undefined, offPolicy: boolean): void {
    let entry = this.clients.get(client);
    if (!entry) {
      if (this.clients.size >= MAX_CLIENTS) return;
      entry = { mainTurns: 0, askedOtherwise: 0, offPolicy: 0, asked: {} };
      this.clients.set(client, entry);
    }
    entry.mainTurns += 1;
    if (offPolicy) entry.offPolicy += 1;
    if (asked && Object.keys(asked).length > 0) {
      entry.askedOtherwise += 1;
      for (const key of Object.keys(asked)) entry.asked[key] = (entry.asked[key] ?? 0) + 1;
    }
  }

  counts(): ClientSampling[] {
    return [...this.clients].map(([client, entry]) => ({ client, ...entry, asked: { ...entry.asked } }));
  }
}
