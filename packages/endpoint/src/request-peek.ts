/** The `request` event's detail: a request frame's fields, parsed only if a listener reads them. */

interface RequestPeek {
  type?: unknown;
  id?: unknown;
  toolId?: unknown;
  /** The whole decoded request (arguments included), for logs and inspectors. */
  message?: unknown;
}

/** {type, id, toolId, message} of a request frame, parsed on first access (most pages never look). */
export function lazyPeek(frame: string): RequestPeek {
  let parsed: RequestPeek | undefined;
  const read = (): RequestPeek => {
    if (parsed) return parsed;
    parsed = {};
    if (frame.length > 65_536) return parsed;
    try {
      const value = JSON.parse(frame) as {
        type?: unknown;
        id?: unknown;
        payload?: { toolId?: unknown };
      };
      if (typeof value === 'object' && value !== null) {
        parsed = {
          type: value.type,
          id: value.id,
          toolId: value.payload?.toolId,
          message: value,
        };
      }
    } catch {
      // Not JSON: nothing to show.
    }
    return parsed;
  };
  return {
    get type() {
      return read().type;
    },
    get id() {
      return read().id;
    },
    get toolId() {
      return read().toolId;
    },
    get message() {
      return read().message;
    },
  };
}
