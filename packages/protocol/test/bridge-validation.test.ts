import { describe, expect, it, vi } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeTool, ValidatorProvider } from '../src/index.js';
import { createToolBridge, toolFailure } from '../src/index.js';
import { exchange, request, tool } from './helpers.js';

// One validation per call: a tool that checks its own arguments and result says so
// (`validates`), and the bridge does not check them again. And one serializability walk per
// value: where the response is written, or as a batch item / evidence runs, never both.

const STRICT = {
  argumentsSchema: {
    type: 'object',
    properties: { n: { type: 'integer' } },
    required: ['n'],
    additionalProperties: false,
  },
  resultSchema: { type: 'object', required: ['ok'] },
};

/** The ajv provider, counting the schemas it is asked to compile. */
function countingValidator(): { validator: ValidatorProvider; compiled: object[] } {
  const inner = createAjvProvider();
  const compiled: object[] = [];
  return {
    compiled,
    validator: {
      compile(schema) {
        compiled.push(schema);
        return inner.compile(schema);
      },
    },
  };
}

function bridgeOf(tools: BridgeTool[], validator: ValidatorProvider = createAjvProvider()) {
  return createToolBridge({ tools: () => tools, guard: 'read-write', validator });
}

describe('a tool that validates itself', () => {
  it('is not checked again by the bridge; a tool that does not say so still is', async () => {
    const checked = vi.fn((args: Record<string, unknown>) => ({ got: args }));
    const own = vi.fn((args: Record<string, unknown>) => ({ got: args }));
    const { validator, compiled } = countingValidator();
    const selfChecking: BridgeTool = {
      ...tool('t.own', own, STRICT),
      validates: { arguments: true, result: true },
    };
    const bridge = bridgeOf([tool('t.checked', checked, STRICT), selfChecking], validator);

    // Honest path first: valid arguments reach both tools.
    const valid = await exchange(
      bridge,
      request('tool.call', { toolId: 't.checked', arguments: { n: 1 } }),
    );
    expect(valid.payload.code).toBe('tool_result_schema_invalid');
    expect(checked).toHaveBeenCalledTimes(1);
    expect(compiled).toEqual([STRICT.argumentsSchema, STRICT.resultSchema]);

    // The bridge refuses bad arguments for the tool that does not check itself...
    const refused = await exchange(
      bridge,
      request('tool.call', { toolId: 't.checked', arguments: { n: 'one' } }),
    );
    expect(refused.payload.code).toBe('tool_arguments_schema_invalid');
    expect(refused.payload.details[0].path).toBe('$.n');
    expect(checked).toHaveBeenCalledTimes(1);

    // ...and hands them to the one that does, whose result it does not check either.
    const passed = await exchange(
      bridge,
      request('tool.call', { toolId: 't.own', arguments: { n: 'one', extra: true } }),
    );
    expect(passed.payload).toMatchObject({ success: true, result: { got: { n: 'one' } } });
    expect(own).toHaveBeenCalledTimes(1);
    expect(compiled).toHaveLength(2);
  });

  it('reports its own schema failures with its own details, untouched', async () => {
    const details = [{ path: '$.n', message: 'must be integer', keyword: 'type', schemaPath: '#' }];
    const bridge = bridgeOf([
      {
        ...tool('t.own', () =>
          toolFailure({ code: 'tool_arguments_schema_invalid', message: 'bad n', details }),
        ),
        validates: { arguments: true, result: true },
      },
    ]);
    const response = await exchange(bridge, request('tool.call', { toolId: 't.own' }));
    expect(response.payload).toEqual({
      code: 'tool_arguments_schema_invalid',
      message: 'bad n',
      retryable: false,
      details,
    });
  });

  it('declares each half on its own: arguments only leaves the result to the bridge', async () => {
    const { validator, compiled } = countingValidator();
    const bridge = bridgeOf(
      [
        {
          ...tool('t.args', () => ({ missing: 'ok' }), STRICT),
          validates: { arguments: true },
        },
        { ...tool('t.result', () => ({ missing: 'ok' }), STRICT), validates: { result: true } },
      ],
      validator,
    );
    const args = await exchange(
      bridge,
      request('tool.call', { toolId: 't.args', arguments: { n: 'x' } }),
    );
    expect(args.payload.code).toBe('tool_result_schema_invalid');
    const result = await exchange(
      bridge,
      request('tool.call', { toolId: 't.result', arguments: { n: 2 } }),
    );
    expect(result.payload).toMatchObject({ success: true, result: { missing: 'ok' } });
    expect(compiled).toEqual([STRICT.resultSchema, STRICT.argumentsSchema]);
  });
});

describe('one serializability walk per value', () => {
  /** A result whose toJSON counts its reads: the walk reads it once, the stringify once. */
  function counted() {
    const reads = { count: 0 };
    const value = {
      toJSON() {
        reads.count++;
        return { ok: true };
      },
    };
    return { reads, value };
  }

  it('a lone call: walked as the response is written, and stringified', async () => {
    const { reads, value } = counted();
    const bridge = bridgeOf([tool('t.value', () => value, { resultSchema: {} })]);
    const response = await exchange(bridge, request('tool.call', { toolId: 't.value' }));
    expect(reads.count).toBe(2);
    expect(JSON.stringify(response.payload.result)).toBe('{"ok":true}');
  });

  it('a batch item: walked as it runs (the batch must know), then only stringified', async () => {
    const { reads, value } = counted();
    const bridge = bridgeOf([tool('t.value', () => value, { resultSchema: {} })]);
    const response = await exchange(
      bridge,
      request('tool.batch', { calls: [{ toolId: 't.value' }] }),
    );
    expect(reads.count).toBe(2);
    expect(JSON.stringify(response.payload.results[0].result)).toBe('{"ok":true}');
  });

  it('a call with evidence: result and evidence each walked once', async () => {
    const main = counted();
    const tree = counted();
    const bridge = bridgeOf([
      tool('t.value', () => main.value, { resultSchema: {} }),
      tool('ui.get_visual_tree', () => tree.value, { resultSchema: {} }),
    ]);
    const response = await exchange(
      bridge,
      request('tool.call', { toolId: 't.value', after: { include: ['visualTree'] } }),
    );
    expect(main.reads.count).toBe(2);
    expect(tree.reads.count).toBe(2);
    expect(JSON.stringify(response.payload.result)).toBe('{"ok":true}');
    expect(JSON.stringify(response.payload.evidence.visualTree.result)).toBe('{"ok":true}');
  });

  it("a batch item's failure details that cannot be serialized fail that item alone", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bridge = bridgeOf([
      tool('b.ok'),
      tool('b.bad', () => toolFailure({ message: 'no', details: cyclic as never })),
    ]);
    const response = await exchange(
      bridge,
      request('tool.batch', {
        continueOnError: true,
        calls: [{ toolId: 'b.ok' }, { toolId: 'b.bad' }, { toolId: 'b.ok' }],
      }),
    );
    expect(response.type).toBe('tool.batch.result');
    expect(response.payload.results.map((item: any) => item.success)).toEqual([true, false, true]);
    expect(response.payload.results[1].error.code).toBe('tool_protocol_bridge_failed');
  });
});
