import { readFileSync } from 'node:fs';
import { STANDARD_SCENARIOS, replayTrajectory } from '../packages/sdk/src/testing/eval/index';
const file = process.argv[2];
const r = await replayTrajectory(readFileSync(file,'utf8'), STANDARD_SCENARIOS as any, { source: file });
console.log(r.verdict, r.code);
for (const e of r.events.filter(e=>e.runId===r.runId)) console.log(e.seq, e.type, JSON.stringify(e.data).slice(0,150));
