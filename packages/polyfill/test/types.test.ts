import { describe, expectTypeOf, it } from 'vitest';
import type {
  CallToolOptions,
  DataError,
  Installation,
  RegisteredTool,
  Tool,
  ToolDefinition,
} from '../src/index.js';
import { install, type ToolExecutionError, type ToolManager, type Tools } from '../src/index.js';

describe('public types', () => {
  it('install() returns the two layers', () => {
    expectTypeOf(install).returns.toEqualTypeOf<Installation>();
    expectTypeOf<Installation['toolManager']>().toEqualTypeOf<ToolManager>();
    expectTypeOf<Installation['tools']>().toEqualTypeOf<Tools>();
  });

  it('register takes a ToolDefinition and resolves void', () => {
    expectTypeOf<ToolManager['register']>().parameter(0).toEqualTypeOf<ToolDefinition>();
    expectTypeOf<ToolManager['register']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<ToolDefinition['policy']>().toEqualTypeOf<
      'read' | 'write' | 'critical' | undefined
    >();
    expectTypeOf<ToolDefinition>().toHaveProperty('naturalLanguageProperties');
  });

  it('callTool takes a name or a Tool, and an encoding', () => {
    expectTypeOf<Tools['callTool']>().parameter(0).toEqualTypeOf<string | Tool>();
    expectTypeOf<CallToolOptions['encoding']>().toEqualTypeOf<'structured' | 'json' | undefined>();
    expectTypeOf<Tools['getTools']>().returns.toEqualTypeOf<Promise<Tool[]>>();
    expectTypeOf<Tool['call']>().returns.toEqualTypeOf<Promise<unknown>>();
  });

  it('errors carry what callers need', () => {
    expectTypeOf<ToolExecutionError['toolName']>().toEqualTypeOf<string>();
    expectTypeOf<DataError>().toMatchTypeOf<DOMException>();
    expectTypeOf<DataError['errors'][number]>().toEqualTypeOf<{
      path: string;
      reason: string;
      schemaPath: string;
    }>();
  });

  it('RegisteredTool is the spec dictionary', () => {
    expectTypeOf<RegisteredTool['window']>().toEqualTypeOf<Window>();
    expectTypeOf<RegisteredTool['title']>().toEqualTypeOf<string>();
    expectTypeOf<RegisteredTool['inputSchema']>().toEqualTypeOf<object | undefined>();
  });
});
