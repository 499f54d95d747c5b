// wire.d.ts repeats the watcher's Inbox types for the page (the renderer cannot import server modules). This
// file makes `npx tsc -p tsconfig.check.json` fail when one side changes alone: a `false` is not a `true`.
import { expect, it } from 'vitest';
import type { InboxCounts as WireCounts, InboxFolder } from '../core/wire.js';
import type { FolderView, InboxCounts } from './watcher.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: [Same<InboxCounts, WireCounts>, Same<FolderView, InboxFolder>] = [true, true];

it("the page's Inbox types (wire.d.ts) are the watcher's (checked by the type check)", () => {
  expect(agree).toEqual([true, true]);
});
