// The search index's merges in bounded steps (issue 37 finding 3). Every transaction that changes the FTS5 index
// `search` writes a new segment of it; left alone, FTS5 merges them inside whichever write comes next ("automerge":
// 64 × levels pages at a time), so now and then an append, a purge batch or an import batch carried 50-80 ms of
// merging (docs/benchmarks.md). Here automerge is off and the merging is done instead by steps of at most
// INDEX_MERGE_PAGES pages, each its own transaction in the connection's queue, after every few writes until there
// is nothing left to merge: a write waits at most one step, and the segments stay as few as automerge kept them
// (FTS5's usermerge: a level is merged once it holds 4). FTS5's crisismerge (16 segments on a level merged at
// once) is left as it is: a bound should the steps ever not run (an older Satchel, which never sets automerge).
import type { Db, Queries } from './connection.js';

/** The FTS5 table the merges are for (schema.ts). */
const INDEX = 'search';

/**
 * Pages (FTS5's ~4 KiB leaves) one merge step writes at most. 32 kept a step at 10-13 ms of CPU at worst on a
 * shared 2-core machine while a 10,000-message conversation was purged, and the index as small and as fast to
 * search as automerge kept it; 64 reached 17 ms, and 16 made more steps for one odd 150 ms batch
 * (bench/store-purge.mjs, docs/benchmarks.md).
 */
export const INDEX_MERGE_PAGES = 32;

/**
 * Writes after which merging is looked at again: FTS5 merges a level once it holds 4 segments (usermerge), so
 * fewer writes could not have made a merge due, and a step that finds nothing to do still costs a transaction.
 */
export const INDEX_MERGE_AFTER_WRITES = 4;

/**
 * Turn FTS5's automerge off on the index; at every open, after the migrations, since a migration may make the
 * index again (its settings go with it). Written only when it differs, so an open writes nothing otherwise.
 */
export async function applyIndexMergePolicy(db: Db): Promise<void> {
  const row = await db.get<{ v: number }>(`SELECT v FROM ${INDEX}_config WHERE k = 'automerge'`);
  if (row?.v === 0) return;
  await db.transaction((q) => q.run(`INSERT INTO ${INDEX} (${INDEX}, rank) VALUES ('automerge', 0)`));
}

/**
 * One bounded merge step; true when it merged something (FTS5 says so only through the change count: a step that
 * did work changes 2 rows or more).
 */
export async function mergeStep(q: Queries, pages = INDEX_MERGE_PAGES): Promise<boolean> {
  const before = await q.get<{ n: number }>('SELECT total_changes() AS n');
  await q.run(`INSERT INTO ${INDEX} (${INDEX}, rank) VALUES ('merge', ?)`, [pages]);
  const after = await q.get<{ n: number }>('SELECT total_changes() AS n');
  return (after?.n ?? 0) - (before?.n ?? 0) >= 2;
}

/**
 * Runs merge steps once INDEX_MERGE_AFTER_WRITES writes have ended, one after another, each queued behind the
 * transactions already waiting, until a step finds nothing to merge. One run at a time; a failed step (a full
 * disk, the connection closing) is left for the next writes.
 */
export class IndexMerges {
  private writes = 0;
  private running = false;
  private stopped = false;

  constructor(
    private readonly step: () => Promise<boolean>,
    private readonly afterWrites = INDEX_MERGE_AFTER_WRITES,
  ) {}

  /** A write ended. */
  wrote(): void {
    if (this.stopped || ++this.writes < this.afterWrites || this.running) return;
    this.running = true;
    setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        if (this.stopped) return;
        this.writes = 0;
        const merged = await this.step();
        if (!merged && this.writes < this.afterWrites) return;
      }
    } catch {
      // Left for the next writes: the index is whole either way, only less merged.
    } finally {
      this.running = false;
    }
  }

  /** Whether a run of steps is under way (tests wait for it to end). */
  get busy(): boolean {
    return this.running;
  }

  stop(): void {
    this.stopped = true;
  }
}
