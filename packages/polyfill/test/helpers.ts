import { Window } from 'happy-dom';
import type { Installation } from '../src/index.js';
import { install } from '../src/index.js';

/** A fresh happy-dom window at a secure origin, with the polyfill installed on it. */
export function freshInstall(url = 'https://app.example/'): Installation & { win: Window } {
  const win = new Window({ url });
  const installation = install({ window: win as unknown as never });
  return { ...installation, win };
}

/** The DOMException name (or error name) a promise rejects with. */
export async function rejection(
  promise: Promise<unknown>,
): Promise<{ name: string; message: string; error: any }> {
  try {
    await promise;
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message, error };
  }
  throw new Error('expected the promise to reject');
}
