import type { LoweringErrorCode } from '../error-codes.js';
import { DEFAULT_LIMITS, type LoweringOptions, MAX_DEPTH_CEILING } from '../limits.js';
import { LoweringError } from '../lowering-error.js';
import { toPointer } from './pointer.js';

interface NodeBufferStatic {
  byteLength(text: string, encoding: 'utf8'): number;
}
const NodeBuffer = (globalThis as { Buffer?: NodeBufferStatic }).Buffer;

/** What a failed anyOf/oneOf branch must undo before the next one is tried. */
export interface WalkMark {
  path: number;
  chars: number;
  items: number;
  exact: number;
  tasks: number;
  checks: number;
}

/**
 * The state one lower or lift call carries down its walk: limits, the key path (kept as a
 * stack and only joined into a pointer on failure), the ancestors by depth (read only when
 * the depth limit trips, to tell a cycle from deep nesting), the JSON size budget, and the
 * asynchronous work (reading Blobs, encoding and decoding PNG) that runs after the walk.
 */
export class WalkState {
  readonly maxDepth: number;
  readonly maxJsonBytes: number;
  readonly maxBinaryBytes: number;
  readonly path: (string | number)[] = [];
  readonly ancestors: unknown[] = [];
  /**
   * The size budget (LOWERING.md §"Limits"). Strings count their code units in `chars`,
   * base64 text its length in `exact`, and every value or key one `item`. The JSON text's
   * UTF-8 size lies between chars + exact + items and 6 * chars + exact + 26 * items: a
   * code unit takes 1 to 6 bytes (`\u001f`), and an item's quotes, colon, comma or number
   * take 1 to 26. Only when the limit falls between the two is the text measured.
   */
  chars = 0;
  items = 0;
  exact = 0;
  /** Error records open on the lowering walk, to bound the `cause` chain. */
  openErrors = 0;
  /** Run after the synchronous walk, in parallel; each fills a slot the walk left. */
  readonly tasks: (() => Promise<void>)[] = [];
  /** Checks that need the tasks' results (uniqueness, enum over Blob records), run last. */
  readonly checks: (() => void)[] = [];

  constructor(options: LoweringOptions | undefined) {
    this.maxDepth = limit(options?.maxDepth, DEFAULT_LIMITS.maxDepth, 'maxDepth');
    if (this.maxDepth > MAX_DEPTH_CEILING) {
      throw new RangeError(`maxDepth must be at most ${MAX_DEPTH_CEILING}.`);
    }
    this.maxJsonBytes = limit(options?.maxJsonBytes, DEFAULT_LIMITS.maxJsonBytes, 'maxJsonBytes');
    this.maxBinaryBytes = limit(
      options?.maxBinaryBytes,
      DEFAULT_LIMITS.maxBinaryBytes,
      'maxBinaryBytes',
    );
  }

  pointer(): string {
    return toPointer(this.path);
  }

  /** A copy of the path, for an asynchronous task to `resume` before it reports. */
  capture(): (string | number)[] {
    return this.path.slice();
  }

  /** Tasks interleave only at their awaits, so a task re-seats the path after each one. */
  resume(path: readonly (string | number)[]): void {
    this.path.length = 0;
    this.path.push(...path);
  }

  fail(code: LoweringErrorCode, message: string, schemaPath: string, cause?: unknown): never {
    const options =
      cause === undefined
        ? { path: this.pointer(), schemaPath }
        : { path: this.pointer(), schemaPath, cause };
    throw new LoweringError(code, message, options);
  }

  /**
   * Every array or object on the JSON side passes here before its children: depth, then the
   * size budget. A cycle shows up as runaway depth, so it costs nothing until the limit trips.
   */
  enter(value: unknown, depth: number, schemaPath: string): void {
    this.ancestors[depth] = value;
    if (depth >= this.maxDepth) this.tooDeep(depth, schemaPath);
    this.items++;
    if (this.chars + this.items + this.exact > this.maxJsonBytes) this.tooLarge(schemaPath);
  }

  /** Counts base64 (or other escape-free ASCII) text of known length. */
  addExact(length: number, schemaPath: string): void {
    this.exact += length;
    this.items++;
    if (this.chars + this.items + this.exact > this.maxJsonBytes) this.tooLarge(schemaPath);
  }

  checkBinary(bytes: number, schemaPath: string, what: string): void {
    if (bytes > this.maxBinaryBytes) {
      this.fail(
        'binary_too_large',
        `${what} is ${bytes} bytes, over maxBinaryBytes (${this.maxBinaryBytes}).`,
        schemaPath,
      );
    }
  }

  /** After the walk and its tasks: settles the size budget exactly when the bounds disagree. */
  finishBudget(json: unknown): void {
    if (6 * this.chars + this.exact + 26 * this.items <= this.maxJsonBytes) return;
    this.path.length = 0;
    if (this.chars + this.exact + this.items > this.maxJsonBytes) this.tooLarge('#');
    const text = JSON.stringify(json);
    const bytes = NodeBuffer
      ? NodeBuffer.byteLength(text, 'utf8')
      : new TextEncoder().encode(text).length;
    if (bytes > this.maxJsonBytes) this.tooLarge('#');
  }

  async runTasks(): Promise<void> {
    // A task may queue more (a Blob inside an error cause is still one level): drain in rounds.
    while (this.tasks.length > 0) {
      const round = this.tasks.splice(0, this.tasks.length);
      await Promise.all(round.map((task) => task()));
    }
    for (const check of this.checks) check();
  }

  mark(): WalkMark {
    return {
      path: this.path.length,
      chars: this.chars,
      items: this.items,
      exact: this.exact,
      tasks: this.tasks.length,
      checks: this.checks.length,
    };
  }

  restore(mark: WalkMark): void {
    this.path.length = mark.path;
    this.chars = mark.chars;
    this.items = mark.items;
    this.exact = mark.exact;
    this.tasks.length = mark.tasks;
    this.checks.length = mark.checks;
  }

  private tooDeep(depth: number, schemaPath: string): never {
    // A value met again among its own ancestors is a cycle; report where it first closes.
    for (let later = 1; later <= depth; later++) {
      for (let earlier = 0; earlier < later; earlier++) {
        if (this.ancestors[earlier] === this.ancestors[later]) {
          this.path.length = later;
          this.fail('cycle', `The value contains itself (it first recurs here).`, schemaPath);
        }
      }
    }
    this.fail(
      'depth_exceeded',
      `Arrays and objects nest deeper than maxDepth (${this.maxDepth}).`,
      schemaPath,
    );
  }

  private tooLarge(schemaPath: string): never {
    this.fail(
      'json_too_large',
      `The JSON text exceeds maxJsonBytes (${this.maxJsonBytes} bytes).`,
      schemaPath,
    );
  }
}

function limit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive safe integer.`);
  }
  return value;
}
