// A node:test reporter that writes how long each test file's top-level tests took, as JSON
// ({ "test/x.test.ts": seconds, … }), so that scripts/run-tests.mjs can start the slowest files first.
// Used by `npm run test:durations`; the figures are kept in scripts/test-durations.json.
import { relative } from 'node:path';

export default async function* fileDurations(source) {
  const seconds = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.nesting !== 0 || !data.file) continue;
    const file = relative(process.cwd(), data.file);
    seconds.set(file, (seconds.get(file) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
  }
  const sorted = [...seconds].sort((a, b) => b[1] - a[1]).map(([file, s]) => [file, Math.round(s * 10) / 10]);
  yield `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`;
}
