/**
 * A string that counts the characters read from it, for tests that an
 * algorithm is linear without timing it: give it a budget of a few reads
 * per character, and a pass that rescans the text per item throws long
 * before it would have finished.
 *
 * @module
 */

/** Thrown when a {@link CountedText} has been read past its budget. */
export class ReadBudgetError extends Error {
  /** @param length The text's length; @param budget the reads it allowed. */
  constructor(length: number, budget: number) {
    super(
      `read more than ${budget.toLocaleString("en-US")} characters of a ` +
        `${length.toLocaleString("en-US")}-character text: not a bounded ` +
        "number of passes",
    );
    this.name = "ReadBudgetError";
  }
}

/**
 * A `String` object whose reading methods (`charCodeAt`, `charAt`,
 * `indexOf`, `lastIndexOf` by the span they search, `startsWith`, `slice`,
 * `substring`) count the characters they read. Index access (`text[i]`) is
 * not counted; the code under test must not use it.
 */
export class CountedText extends String {
  /** Characters read so far. */
  reads = 0;
  readonly #budget: number;

  /** @param budget Reads allowed before {@link ReadBudgetError}. */
  constructor(text: string, budget: number) {
    super(text);
    this.#budget = budget;
  }

  /** This, typed as the `string` the code under test takes. */
  asString(): string {
    return this as unknown as string;
  }

  #spend(n: number): void {
    this.reads += Math.max(1, n);
    if (this.reads > this.#budget) {
      throw new ReadBudgetError(this.length, this.#budget);
    }
  }

  override charCodeAt(index: number): number {
    this.#spend(1);
    return super.charCodeAt(index);
  }

  override charAt(index: number): string {
    this.#spend(1);
    return super.charAt(index);
  }

  override indexOf(search: string, from = 0): number {
    const at = super.indexOf(search, from);
    this.#spend((at < 0 ? this.length : at + search.length) - from);
    return at;
  }

  override lastIndexOf(search: string, from = Infinity): number {
    const at = super.lastIndexOf(search, from);
    this.#spend(Math.min(from, this.length) - (at < 0 ? 0 : at));
    return at;
  }

  override startsWith(search: string, position = 0): boolean {
    this.#spend(search.length);
    return super.startsWith(search, position);
  }

  override slice(start?: number, end?: number): string {
    const part = super.slice(start, end);
    this.#spend(part.length);
    return part;
  }

  override substring(start: number, end?: number): string {
    const part = super.substring(start, end);
    this.#spend(part.length);
    return part;
  }
}
