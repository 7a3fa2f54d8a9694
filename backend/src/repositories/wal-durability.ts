// Group commit for the embedded database. SQLite runs in WAL mode with synchronous=NORMAL, so a
// COMMIT only writes its frames to the WAL file (the operating system holds them; a killed process
// loses nothing) and returns at once. Power-loss durability then comes from here: the WAL file is
// synced with fdatasync in libuv's thread pool, so the event loop never waits on the disk, and
// every writer is told it committed only once a sync that started after its COMMIT has completed.
// Commits made while a sync is in flight share the next one. This is what synchronous=FULL gives
// (each commit on disk before it is acknowledged), without one blocking fsync per transaction.
// (A second sync in flight at once, so that such a commit need not wait for the first to end, made
// every sync slower on this disk and hooks no faster: decision 0030.)
//
// Reads count too: `settled()` resolves once a sync that started after everything this process has
// read or written so far has completed, so an answer built from what was read (an HTTP response,
// events sent to a socket) never shows data that a power loss could still take back.
//
// Someone waiting at the door (an HTTP answer, a trigger's 202) should not wait for the event loop
// to come round to a thread-pool sync's callback while runs keep it busy: `durableNow` syncs on
// this thread instead, which on a disk that syncs in well under a millisecond is far cheaper than
// the turns it saves. A sync that took longer than INLINE_BUDGET_MS sends such waits back to the
// thread pool for INLINE_PAUSE_MS, so a slow disk never stalls the event loop for long. A thread
// whose runs execute elsewhere (the request thread, when runs have threads of their own) does not
// sync inline at all: its event loop is free, and it accepts more requests while the pool syncs.
//
// A failed sync poisons the database handle: after an fsync error the kernel may have dropped the
// unwritten pages, so no later write can be called durable; every later wait fails until restart,
// and the dialect refuses every later write before it commits (`failure`), so nothing is committed
// that nobody could be told about. The error carries the code SQLITE_IOERR_FSYNC, which the API
// answers with DATABASE_SYNC_FAILED (database-errors.ts).
import { close, fdatasync, fdatasyncSync, fsync, open } from "node:fs";
import { dirname } from "node:path";

/** Flushes a file descriptor's data to the disk (fs.fdatasync's callback form). */
export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;
/** The same on this thread (fs.fdatasyncSync's form): throws when the disk refuses. */
export type SyncFileNow = (fd: number) => void;

/** The code of the error every wait fails with once a sync has failed. */
export const SYNC_FAILED_CODE = "SQLITE_IOERR_FSYNC";

const INLINE_BUDGET_MS = 5;
const INLINE_PAUSE_MS = 1000;

export interface WalDurabilityOptions {
  /**
   * Flushes the WAL file (fs.fdatasync; another one only to make the disk fail in tests). A test
   * that passes one without `syncFileNow` gets every sync from it: none runs on this thread.
   */
  syncFile?: SyncFile;
  /** Flushes it on this thread (fs.fdatasyncSync by default); null: never on this thread. */
  syncFileNow?: SyncFileNow | null;
  /** A sync on this thread that takes longer than this sends waits to the thread pool for a while. */
  inlineBudgetMs?: number;
  /** Milliseconds, monotonic (tests pass their own clock). */
  now?: () => number;
}

interface Waiter {
  mark: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class WalDurability {
  readonly #walPath: string;
  #fd: number | null = null;
  /** Bumped by every statement executed (read or commit). */
  #touched = 0;
  /** The #touched value the last completed sync covers. */
  #synced = 0;
  #syncing = false;
  #waiters: Waiter[] = [];
  #failure: Error | null = null;
  #closed = false;
  #idle: (() => void)[] = [];
  readonly #inlineBudgetMs: number;
  readonly #now: () => number;
  /** Until when waits go to the thread pool after a slow sync on this thread. */
  #inlinePausedUntil = Number.NEGATIVE_INFINITY;
  /** Syncs completed (tests and benchmarks count them), and how many of them ran on this thread. */
  syncs = 0;
  inlineSyncs = 0;

  readonly #syncFile: SyncFile;
  readonly #syncFileNow: SyncFileNow | null;

  constructor(databasePath: string, options: WalDurabilityOptions = {}) {
    this.#walPath = `${databasePath}-wal`;
    this.#syncFile = options.syncFile ?? fdatasync;
    this.#syncFileNow =
      options.syncFileNow === undefined ? (options.syncFile ? null : fdatasyncSync) : options.syncFileNow;
    this.#inlineBudgetMs = options.inlineBudgetMs ?? INLINE_BUDGET_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The error of a failed sync: set once, for good (until the process restarts). */
  get failure(): Error | null {
    return this.#failure;
  }

  /** Notes a statement that read or committed; returns the mark a later `durable` waits for. */
  touch(): number {
    return ++this.#touched;
  }

  /** The mark of everything read or written so far. */
  get mark(): number {
    return this.#touched;
  }

  /** Whether everything up to `mark` is on disk already. */
  isDurable(mark: number): boolean {
    return mark <= this.#synced;
  }

  /** Resolves once everything up to `mark` (by default, everything so far) is on disk. */
  durable(mark = this.#touched): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (mark <= this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ mark, resolve, reject });
      this.#kick();
    });
  }

  /**
   * Like `durable`, for someone waiting for an answer: syncs on this thread at once (it covers
   * every commit so far) unless the WAL file is not open yet or a recent sync here was slow.
   */
  durableNow(mark = this.#touched): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (mark <= this.#synced) return Promise.resolve();
    const fd = this.#fd;
    const syncNow = this.#syncFileNow;
    if (fd === null || syncNow === null || this.#closed || this.#now() < this.#inlinePausedUntil)
      return this.durable(mark);
    const target = this.#touched;
    const started = this.#now();
    try {
      syncNow(fd);
    } catch (error) {
      this.#fail(error as Error);
      return Promise.reject(this.#failure);
    }
    const took = this.#now() - started;
    if (took > this.#inlineBudgetMs) this.#inlinePausedUntil = started + took + INLINE_PAUSE_MS;
    this.syncs++;
    this.inlineSyncs++;
    this.#covered(target);
    return Promise.resolve();
  }

  /** Syncs what is not on disk yet (nothing waits for it otherwise), then closes the WAL file. */
  async close(): Promise<void> {
    if (!this.#failure && this.#touched > this.#synced) await this.durable().catch(() => {});
    if (this.#syncing) await new Promise<void>((resolve) => this.#idle.push(resolve));
    this.#closed = true;
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }

  #kick(): void {
    if (this.#syncing || this.#waiters.length === 0) return;
    if (this.#closed) {
      this.#fail(new Error("the database is closed"));
      return;
    }
    this.#syncing = true;
    const target = this.#touched;
    this.#syncWal((error) => {
      this.#syncing = false;
      if (error) this.#fail(error);
      else {
        this.syncs++;
        this.#covered(target);
      }
      for (const resolve of this.#idle.splice(0)) resolve();
      this.#kick();
    });
  }

  /** Everything up to `target` is on disk: tells the waiters it covers. */
  #covered(target: number): void {
    this.#synced = Math.max(this.#synced, target);
    const still: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.mark <= this.#synced) waiter.resolve();
      else still.push(waiter);
    }
    this.#waiters = still;
  }

  #syncWal(done: (error: Error | null) => void): void {
    if (this.#fd !== null) {
      this.#syncFile(this.#fd, done);
      return;
    }
    open(this.#walPath, "r", (error, fd) => {
      // No WAL file yet: nothing has been written through it, so nothing is waiting on the disk.
      if (error?.code === "ENOENT") return done(null);
      if (error) return done(error);
      this.#fd = fd;
      // Once, for the file's own directory entry (SQLite syncs it only at its first WAL sync,
      // which with NORMAL comes with the first checkpoint).
      open(dirname(this.#walPath), "r", (dirError, dirFd) => {
        if (dirError) return done(dirError);
        fsync(dirFd, (syncError) => {
          close(dirFd, () => {
            if (syncError) return done(syncError);
            this.#syncFile(fd, done);
          });
        });
      });
    });
  }

  #fail(cause: Error): void {
    this.#failure ??= Object.assign(
      new Error(`the disk did not confirm a database write (${cause.message}); restart the studio`, { cause }),
      { code: SYNC_FAILED_CODE },
    );
    for (const waiter of this.#waiters.splice(0)) waiter.reject(this.#failure);
  }
}
