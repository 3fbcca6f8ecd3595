// One stack of things to close: each step that opens something pushes its close under a name, and closeAll closes
// them newest first, every one even when another fails, reporting each failure by name. Knows nothing of what it closes.

export interface CloseFailure {
  name: string;
  error: unknown;
}

export type CloseFunction = () => unknown;

export interface ResourceStackOptions {
  /** Told of each close that failed, as it fails (the rest still close). */
  onCloseError?: (failure: CloseFailure) => void;
}

export class ResourceStack {
  private readonly entries: Array<{ name: string; close: CloseFunction }> = [];
  private closing: Promise<CloseFailure[]> | null = null;

  constructor(private readonly options: ResourceStackOptions = {}) {}

  /** Adds a close, to run before every close pushed earlier. Refused once closing has begun (it would never run). */
  push(name: string, close: CloseFunction): void {
    if (this.closing) throw new Error(`cannot push "${name}": the stack is already closing`);
    this.entries.push({ name, close });
  }

  /** The names pushed so far, oldest first (what closeAll would close, in reverse). */
  names(): string[] {
    return this.entries.map((entry) => entry.name);
  }

  /**
   * Closes everything, newest first, one at a time (each close is awaited before the next starts). A close that
   * throws or rejects is reported and the rest still run. Resolves with the failures; a second call gets the same.
   */
  closeAll(): Promise<CloseFailure[]> {
    this.closing ??= this.closeInReverse();
    return this.closing;
  }

  private async closeInReverse(): Promise<CloseFailure[]> {
    const failures: CloseFailure[] = [];
    for (const { name, close } of [...this.entries].reverse()) {
      try {
        await close();
      } catch (error) {
        const failure = { name, error };
        failures.push(failure);
        try {
          this.options.onCloseError?.(failure);
        } catch {
          // a reporter that fails must not stop the closes still to run
        }
      }
    }
    return failures;
  }
}
