// The upload pump shared by the composer and the workspace panel: jobs start in the order they were added,
// at most `parallel` at a time, and a job removed while still waiting never starts.

export class UploadQueue<J> {
  private waiting: J[] = [];
  private active = 0;

  constructor(
    private readonly parallel: number,
    /** Runs one job; the queue starts the next when the returned promise settles, however it settles. */
    private readonly run: (job: J) => Promise<unknown>,
  ) {}

  add(job: J): void {
    this.waiting.push(job);
    this.pump();
  }

  /** Drop a job that has not started; true when it was still waiting. */
  remove(job: J): boolean {
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((j) => j !== job);
    return this.waiting.length !== before;
  }

  /** Drop every waiting job (running ones are the caller's to abort). */
  clear(): void {
    this.waiting = [];
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private pump(): void {
    while (this.active < this.parallel && this.waiting.length > 0) {
      const job = this.waiting.shift() as J;
      this.active++;
      let done: Promise<unknown>;
      try {
        done = this.run(job);
      } catch (err) {
        done = Promise.reject(err);
      }
      void done
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          this.pump();
        });
    }
  }
}
