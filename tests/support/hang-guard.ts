// The one bound for a test's wait on a child process (its banner, its exit, an event it causes): a guard against a
// hang under the 120 s test budget, never a speed goal; each wait ends at its event, and a loaded 2-core machine
// starts tsx, Python and torch many times slower than an idle one.
export const HANG_GUARD_MS = 100_000;
