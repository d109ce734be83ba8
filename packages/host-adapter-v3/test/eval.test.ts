import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTrajectory, replayTrajectory } from '@media-agent/sdk/testing';
import { v3UnknownDownload } from '../src/testing';

const dir = fileURLToPath(new URL('../eval/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('task evaluation against MoviePilot 3.x (the adapter, the simulator over HTTP, the scripted model)', () => {
  it.each(files)('%s replays to its expected verdict', async (file) => {
    const t = parseTrajectory(readFileSync(join(dir, file), 'utf8'), file);
    const result = await replayTrajectory(t, { [v3UnknownDownload.id]: v3UnknownDownload }, { source: file });
    expect({ verdict: result.verdict, code: result.code }).toEqual({
      verdict: t.expect!.verdict,
      code: t.expect!.code ?? null,
    });
    // The drop is real: the submit came back unknown from the adapter.
    expect(
      result.events.some(
        (e) => e.type === 'tool_call' && e.data.capabilityId === 'download.submit' && e.data.phase === 'unknown',
      ),
    ).toBe(true);
  });
});
