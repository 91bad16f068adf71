/** `toolwire revoke SESSION`: ends a paired tab's session; its credential no longer works. */
import { clientCommand } from './client.js';
import { EXIT } from './command.js';
import { sessionLine } from './format.js';

export const revoke = clientCommand({
  name: 'revoke',
  synopsis: 'revoke SESSION',
  summary: ["End a paired tab's session; its credential no longer reconnects it."],
  positional: { label: 'SESSION', field: 'session' },
  examples: ['toolwire revoke 1a2b3c4d   # an id or a unique prefix, from toolwire sessions'],
  async run({ args, control, out, json }) {
    const answer = await control('/v1/revoke', { session: args.session });
    if (args.json) json({ revoked: answer.session });
    else out(`revoked ${sessionLine(answer.session)}\n`);
    return EXIT.ok;
  },
});
