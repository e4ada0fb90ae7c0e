/**
 * The `shared-run-check` project, the e2e project's teardown: it runs once every end-to-end test
 * (and the signals after them) has ended, and fails when any file of the shared run's folder
 * differs from what the run left. A test that edits the package must work on `copyOfSharedRun()`,
 * or the tests after it would read its edit and could no longer fail for their own defect.
 */
import { expect, test } from '@playwright/test';
import { digestsOf, recordedSharedRun } from './support/shared-run.js';

test('no test changed the shared run\'s files (the tests that edit a package edit a copy)', () => {
  const run = recordedSharedRun();
  test.skip(!run, 'no test of this invocation made the shared run');
  expect(digestsOf(run!.dir), run!.dir).toEqual(run!.digests);
});
