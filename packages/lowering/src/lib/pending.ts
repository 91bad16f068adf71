/**
 * A lifted value that only exists after an await (an ImageBitmap comes from
 * `createImageBitmap`). The walk stores the Pending where the value belongs and registers how
 * to put the real value there; the task that makes it calls every `fill`.
 */
export class Pending {
  readonly fill: ((value: unknown) => void)[] = [];
}
