import Type from 'typebox';
import { ScriptedProvider } from '../../src/testing';

/** `note.write` (propose, claimed in the ledger, never replayed) without its handler: each test brings its own. */
export const noteWrite = {
  id: 'note.write',
  version: 1,
  title: 'Write a note',
  description: 'A proposal (claimed in the ledger).',
  kind: 'propose',
  replay: 'never',
  input: Type.Object({ text: Type.String() }),
  output: Type.Object({ saved: Type.Boolean() }),
} as const;

/** A model that, for a goal matching `note`, says "Noting. " and writes the note `text`, then ends with `finalText`. */
export function noteModel(text: string, finalText: string): ScriptedProvider {
  return new ScriptedProvider({
    scripts: {
      match: 'note',
      steps: [{ text: 'Noting. ', toolCalls: [{ capability: 'note.write', input: { text } }] }],
      finalText,
    },
  });
}
