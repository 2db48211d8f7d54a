// Resumable steps: a step's result is stored once it succeeds and a re-run returns it instead of
// running the step again.
import { memoryStepStore, runStep, runStepOnce, type StepStore } from "@kikitori/shared/server";

/** Resolves when `release` is called: a step held open while others start. */
function gate(): { wait: Promise<void>; release: () => void } {
  let release = () => {};
  const wait = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { wait, release };
}

describe("runStep", () => {
  it("runs a step once: run again, the stored result comes back and the step is not run", async () => {
    const stored = new Map<string, string>();
    const store = memoryStepStore(stored);
    let runs = 0;
    const step = () => {
      runs++;
      return `result ${runs}`;
    };
    expect(await runStepOnce(store, "a", step)).toEqual({ result: "result 1", ran: true });
    expect(await runStepOnce(store, "a", step)).toEqual({ result: "result 1", ran: false });
    expect(await runStep(store, "a", step)).toBe("result 1");
    expect(runs).toBe(1);
    expect([...stored]).toEqual([["a", "result 1"]]);
    // Another id is another step.
    expect(await runStep(store, "b", step)).toBe("result 2");
    expect(runs).toBe(2);
  });

  it("a job killed halfway and run again runs only the steps it had not finished", async () => {
    const stored = new Map<number, number>();
    const charged: number[] = [];
    const job = async (killAfter: number) => {
      const out: number[] = [];
      for (let i = 0; i < 4; i++) {
        if (i === killAfter) throw new Error("killed");
        out.push(
          await runStep(memoryStepStore(stored), i, () => {
            charged.push(i);
            return i * 10;
          }),
        );
      }
      return out;
    };
    await expect(job(2)).rejects.toThrow("killed");
    expect(await job(-1)).toEqual([0, 10, 20, 30]);
    expect(charged).toEqual([0, 1, 2, 3]);
  });

  it("a step that throws stores nothing and runs again next time", async () => {
    const stored = new Map<string, string>();
    const store = memoryStepStore(stored);
    let runs = 0;
    const flaky = async () => {
      runs++;
      if (runs === 1) throw new Error("the model timed out");
      return "answer";
    };
    await expect(runStep(store, "s", flaky)).rejects.toThrow("the model timed out");
    expect(stored.size).toBe(0);
    expect(await runStepOnce(store, "s", flaky)).toEqual({ result: "answer", ran: true });
    expect(runs).toBe(2);
  });

  it("keeps a falsy result: an empty text or zero is a stored result", async () => {
    const store = memoryStepStore<string | number>();
    let runs = 0;
    const empty = () => {
      runs++;
      return "";
    };
    await runStep(store, "x", empty);
    expect(await runStepOnce(store, "x", empty)).toEqual({ result: "", ran: false });
    expect(await runStep(store, "zero", () => 0)).toBe(0);
    expect(await runStep(store, "zero", () => 1)).toBe(0);
    expect(runs).toBe(1);
  });

  it("concurrent runs of one step id on one store run it once and all get its result", async () => {
    const store = memoryStepStore<string>();
    const held = gate();
    let runs = 0;
    const step = async () => {
      runs++;
      await held.wait;
      return `run ${runs}`;
    };
    const first = runStepOnce(store, "s", step);
    const second = runStepOnce(store, "s", step);
    const third = runStep(store, "s", step);
    held.release();
    expect(await first).toEqual({ result: "run 1", ran: true });
    expect(await second).toEqual({ result: "run 1", ran: false });
    expect(await third).toBe("run 1");
    expect(runs).toBe(1);
  });

  it("concurrent runs that share a failing step all fail, and the next run starts it again", async () => {
    const store = memoryStepStore<string>();
    const held = gate();
    let runs = 0;
    const step = async () => {
      runs++;
      await held.wait;
      if (runs === 1) throw new Error("engine crashed");
      return "ok";
    };
    const first = runStep(store, "s", step);
    const second = runStep(store, "s", step);
    held.release();
    await expect(first).rejects.toThrow("engine crashed");
    await expect(second).rejects.toThrow("engine crashed");
    expect(await runStep(store, "s", step)).toBe("ok");
    expect(runs).toBe(2);
  });

  it("two workers (two stores over one place) running a step at once both return the first result stored", async () => {
    const place = new Map<string, string>();
    const workerA = memoryStepStore(place);
    const workerB = memoryStepStore(place);
    const a = gate();
    const b = gate();
    const runA = runStepOnce(workerA, "s", async () => {
      await a.wait;
      return "from A";
    });
    const runB = runStepOnce(workerB, "s", async () => {
      await b.wait;
      return "from B";
    });
    b.release();
    expect(await runB).toEqual({ result: "from B", ran: true });
    a.release();
    // A ran too, but B's result was stored first: A gives it, not its own.
    expect(await runA).toEqual({ result: "from B", ran: true });
    expect(place.get("s")).toBe("from B");
  });

  it("asks the store only for the step it runs, and stores what the step returned", async () => {
    const calls: string[] = [];
    const store: StepStore<{ text: string }, number> = {
      get: async (id) => {
        calls.push(`get ${id}`);
        return undefined;
      },
      put: async (id, result) => {
        calls.push(`put ${id} ${result.text}`);
        return { text: `${result.text} (as stored)` };
      },
    };
    expect(await runStep(store, 7, () => ({ text: "seven" }))).toEqual({ text: "seven (as stored)" });
    expect(calls).toEqual(["get 7", "put 7 seven"]);
  });
});
