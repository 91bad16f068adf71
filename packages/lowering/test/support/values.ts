/**
 * The web values golden fixtures name (`"value": "date:epoch"`). JSON cannot hold them, so each
 * fixture names one and this table builds it fresh for every use.
 */

class Foo {
  a = 1;
}

function utc(year: number, month: number, day: number, h = 0, m = 0, s = 0, ms = 0): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(h, m, s, ms);
  return date;
}

function detachedBuffer(): ArrayBuffer {
  const buffer = new ArrayBuffer(4);
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}

function protoObject(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const polluted = { polluted: true };
  Object.defineProperty(out, '__proto__', {
    value: polluted,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  Object.defineProperty(out, 'constructor', {
    value: { prototype: { polluted: true } },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return out;
}

function selfCause(): Error {
  const error = new Error('loop');
  error.cause = error;
  return error;
}

export const VALUES: Record<string, () => unknown> = {
  undefined: () => undefined,
  // JSON-native
  'json:tree': () => ({ a: 1, b: [true, null, 'x'], c: { d: -1.5, e: 'é😀' } }),
  'json:n1': () => ({ n: 1 }),
  'num:nan': () => Number.NaN,
  'num:inf': () => Number.POSITIVE_INFINITY,
  'num:-inf': () => Number.NEGATIVE_INFINITY,
  'num:-0': () => -0,
  'num:0': () => 0,
  'special:nan-in-object': () => ({ x: [1, Number.NaN] }),
  'special:-0-in-array': () => [-0, 1],
  'special:undefined-property': () => ({ a: 1, b: undefined }),
  'special:a1': () => ({ a: 1 }),
  'special:undefined-in-array': () => [1, undefined],
  // biome-ignore lint/suspicious/noSparseArray: the hole is the point.
  'special:hole': () => [1, , 3],
  'special:symbol': () => Symbol('x'),
  'special:symbol-value': () => ({ a: Symbol('x') }),
  'special:symbol-key': () => ({ [Symbol('k')]: 1, a: 1 }),
  'special:function': () => () => 1,
  'special:function-property': () => ({ f() {} }),
  'special:class': () => new Foo(),
  'special:class-property': () => ({ x: new Foo() }),
  'special:boxed': () => [new Number(5), new String('s'), Object(7n), new Boolean(false)],
  'special:unboxed': () => [5, 's', 7n, false],
  'special:getter': () => ({
    get a() {
      return 1;
    },
  }),
  'special:throwing-getter': () => ({
    ok: 1,
    get bad(): number {
      throw new Error('no');
    },
  }),
  'special:throwing-proxy': () =>
    new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    ),
  'special:tojson': () => ({ toJSON: () => ({ x: 1 }) }),
  'special:tojson-key': () => ({
    a: { toJSON: (key: string) => key },
    b: [{ toJSON: (key: string) => key }],
  }),
  'special:tojson-once': () => ({ toJSON: () => ({ toJSON: () => 'inner' }) }),
  'special:tojson-class': () =>
    new (class {
      toJSON() {
        return 'c';
      }
    })(),
  'special:tojson-throws': () => ({
    a: {
      toJSON() {
        throw new Error('no');
      },
    },
  }),
  'special:date-own-tojson': () => Object.assign(new Date(0), { toJSON: () => 'not this' }),
  'special:buffer': () => Buffer.from([1, 2]),
  'special:hidden': () =>
    Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false }),
  'special:inherited': () => {
    const base = Object.create(null, { inherited: { value: 1, enumerable: true } });
    return Object.assign(Object.create(base), { own: 2 });
  },
  'special:own2': () => ({ own: 2 }),
  'special:array-extra': () => Object.assign([1, 2], { extra: 3 }),
  'special:12': () => [1, 2],
  'special:strings': () => ['\ud800', 'é😀', '"\\\n\u0000'],
  'special:cycle': () => {
    const a: { b: { c: unknown[] } } = { b: { c: [] } };
    a.b.c.push(a);
    return a;
  },
  'special:self-array': () => {
    const a: unknown[] = [];
    a.push(a);
    return a;
  },
  'special:map-cycle': () => {
    const m = new Map<string, unknown>();
    m.set('self', m);
    return m;
  },
  'special:shared': () => {
    const shared = { x: 1 };
    return { a: shared, b: shared };
  },
  // Date
  'date:epoch': () => new Date(0),
  'date:2024': () => utc(2024, 1, 2, 3, 4, 5, 6),
  'date:2024s': () => utc(2024, 1, 2, 3, 4, 5),
  'date:leap': () => utc(2024, 2, 29),
  'date:year0': () => utc(0, 1, 1),
  'date:invalid': () => new Date(Number.NaN),
  'date:year10000': () => utc(10000, 1, 1),
  // BigInt
  'bigint:big': () => 10n ** 30n,
  'bigint:neg': () => -42n,
  'bigint:zero': () => 0n,
  'bigint:7': () => 7n,
  'bigint:1': () => 1n,
  'bigint:huge': () => 10n ** 10_001n,
  // Map
  'map:ab': () =>
    new Map([
      ['a', 1],
      ['b', 2],
    ]),
  'map:empty': () => new Map(),
  'map:dates': () => new Map([[new Date(0), 'x']]),
  'map:dup-dates': () =>
    new Map([
      [new Date(0), 'x'],
      [new Date(0), 'y'],
    ]),
  'map:int-keys': () =>
    new Map([
      ['b', 1],
      ['10', 2],
      ['2', 3],
    ]),
  'map:int-keys-sorted': () =>
    new Map([
      ['2', 3],
      ['10', 2],
      ['b', 1],
    ]),
  'map:int': () =>
    new Map([
      [1, 'a'],
      [2, 'b'],
    ]),
  'map:mixed': () =>
    new Map<unknown, unknown>([
      [1, 'a'],
      ['b', 2],
    ]),
  'map:undefined-value': () => new Map([[1, undefined]]),
  'map:dup-object-keys': () =>
    new Map([
      [{ a: 1 }, 'x'],
      [{ a: 1 }, 'y'],
    ]),
  'map:proto': () => new Map([['__proto__', 1]]),
  // Set
  'set:ab': () => new Set(['a', 'b']),
  'set:empty': () => new Set(),
  'set:mixed': () => new Set([1, '1', null]),
  'set:dup-objects': () => new Set([{ a: 1 }, { a: 1 }]),
  'set:undefined': () => new Set([undefined]),
  // Binary
  'bin:u8-sub': () => new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]).subarray(2, 5),
  'bin:u8-234': () => new Uint8Array([2, 3, 4]),
  'bin:u8-empty': () => new Uint8Array(0),
  'bin:u8-23': () => new Uint8Array([2, 3]),
  'bin:ab': () => new Uint8Array([255, 0, 128]).buffer,
  'bin:i8': () => new Int8Array([-1, 127]),
  'bin:u8c': () => new Uint8ClampedArray([0, 255]),
  'bin:i16': () => new Int16Array([1, -2]),
  'bin:u16': () => new Uint16Array([0x1234]),
  'bin:i32': () => new Int32Array([-1]),
  'bin:u32': () => new Uint32Array([1]),
  'bin:f32': () => new Float32Array([1.5]),
  'bin:f64': () => new Float64Array([1]),
  'bin:bi64': () => new BigInt64Array([-1n]),
  'bin:bu64': () => new BigUint64Array([2n ** 64n - 1n]),
  'bin:dataview': () => new DataView(new Uint8Array([9, 8, 7, 6]).buffer, 1, 2),
  'bin:dataview-87': () => new DataView(new Uint8Array([8, 7]).buffer),
  'bin:buffer': () => Buffer.from([1, 2]),
  'bin:u8-12': () => new Uint8Array([1, 2]),
  'bin:detached': detachedBuffer,
  'bin:detached-view': () => {
    const bytes = new Uint8Array(4);
    const view = bytes.subarray(1);
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
    return view;
  },
  // Blob, File
  'blob:text': () => new Blob(['hello'], { type: 'text/plain' }),
  'blob:untyped': () => new Blob([new Uint8Array([1, 2])]),
  'blob:octet': () => new Blob([new Uint8Array([1, 2])], { type: 'application/octet-stream' }),
  'blob:params': () => new Blob(['a'], { type: 'text/plain;charset=utf-8' }),
  'blob:bad-type': () => new Blob([], { type: 'foo' }),
  'blob:hi': () => new Blob(['hi'], { type: 'text/plain' }),
  'file:a': () =>
    new File(['hi'], 'a.txt', { type: 'text/plain', lastModified: 1_700_000_000_000 }),
  // Errors
  'error:type': () => new TypeError('bad'),
  'error:code': () => Object.assign(new Error('no file'), { code: 'ENOENT' }),
  'error:custom-name': () => {
    class MyError extends Error {
      override name = 'MyError';
    }
    return new MyError('mine');
  },
  'error:cause': () => new Error('outer', { cause: new Error('inner') }),
  'error:cause-plain': () => new Error('outer', { cause: { name: 'Error', message: 'inner' } }),
  'error:cause-string': () => new Error('x', { cause: 'why' }),
  'error:self-cause': selfCause,
  'error:aggregate': () => new AggregateError([new Error('a')], 'many'),
  'error:range-code': () => Object.assign(new RangeError('r'), { code: 42 }),
  'dom:not-found': () => new DOMException('nope', 'NotFoundError'),
  'dom:custom': () => new DOMException('m', 'CustomName'),
  // RegExp, URL
  'regexp:ab': () => /a+b/gi,
  'url:ex': () => new URL('https://example.com/a?b=1#c'),
  'url:root': () => new URL('https://example.com/'),
  'url:space': () => new URL('https://example.com/a%20b'),
  // Hostile
  'hostile:proto-object': protoObject,
  'hostile:proto-nested': () => ({ a: [protoObject()] }),
  'plain:empty': () => ({}),
};

export function makeValue(name: string): unknown {
  const make = VALUES[name];
  if (!make) throw new Error(`No value named ${name} in test/support/values.ts`);
  return make();
}
