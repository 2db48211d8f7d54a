import { AppError } from "@kikitori/shared";

/** At most `max` holders at once; the others wait in order, each at most `waitMs` (then 503). */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(readonly max: number) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async acquire(waitMs: number): Promise<() => void> {
    if (this.active < this.max) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(
          new AppError("SERVICE_UNAVAILABLE", "The server is busy checking other recordings; please try again shortly"),
        );
      }, waitMs);
      this.waiting.push(grant);
    });
    // The releasing holder handed its place over (active stays the same).
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
