import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pretenuringChosenAtStart } from './serving-heap.js';

test('pretenuring is turned off for serving unless node was started with it chosen either way', () => {
  const table: [execArgv: string[], chosen: boolean][] = [
    [[], false],
    [['--max-old-space-size=512', '--enable-source-maps'], false],
    [['--allocation-site-pretenuring'], true],
    [['--no-allocation-site-pretenuring'], true],
    [['--noallocation-site-pretenuring'], true],
    [['--allocation_site_pretenuring'], true],
    [['--inspect', '--allocation-site-pretenuring'], true],
    [['--allocation-site-pretenuring-extra'], false],
  ];
  for (const [execArgv, chosen] of table) assert.equal(pretenuringChosenAtStart(execArgv), chosen, execArgv.join(' ') || '(no flags)');
});
