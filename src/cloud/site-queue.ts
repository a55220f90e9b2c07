// A site's run slots: at most `concurrency` runs at once, then a FIFO queue of at most `queueMax` waiting
// runs; a run beyond that is `busy`, and a queued run whose time runs out leaves the queue as `timeout`.
import { RunFailure, seconds } from "./failure.js";

interface Waiter {
  grant: () => void;
}

export class SiteQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly queueMax: number,
  ) {}

  get counts() {
    return { running: this.running, queued: this.waiting.length };
  }

  /** Resolves with the slot's release once the run may start; rejects with a RunFailure. */
  acquire(deadline: number, now: () => number = Date.now): Promise<() => void> {
    const release = () => {
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.running--;
    };
    let released = false;
    const once = () => {
      if (!released) {
        released = true;
        release();
      }
    };
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve(once);
    }
    if (this.waiting.length >= this.queueMax)
      return Promise.reject(
        new RunFailure(
          "busy",
          `The site's cloud runs are all busy (${this.concurrency} running, ${this.waiting.length} waiting); try again shortly.`,
        ),
      );
    const started = now();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(once);
        },
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(
          new RunFailure(
            "timeout",
            `The call waited ${seconds(now() - started)} for one of the site's ${this.concurrency} cloud run slots and its time ran out.`,
          ),
        );
      }, deadline - started);
      this.waiting.push(waiter);
    });
  }
}
