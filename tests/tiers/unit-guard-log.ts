// What the unit guard refused while this file ran, in order; apart from the guard so that reading it imports no
// child_process (which would put the reader in the loopback tier).
export const started: string[] = [];
