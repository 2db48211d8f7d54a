/**
 * Resumable steps: a step has a stable id within its job, and its result is stored once it
 * succeeds. When the job runs again (killed halfway and retried, or handed back at shutdown), a
 * step whose result is stored returns that result instead of running again, so the job ends with
 * the same result and pays for each step (engine time, language-model tokens) once.
 *
 * Where results are kept is the caller's choice (a StepStore: the job's own table rows, an object
 * store, a Redis hash, or memory in tests). The store keeps the first result put for an id: two
 * workers that run one step at once both return the one stored first. Within one process, calls for
 * an id that is running on the same store wait for that run instead of starting another. A step that
 * throws stores nothing and runs again next time.
 */

export type StepId = string | number;

/** Where the results of one job's steps are kept. */
export interface StepStore<T, Id extends StepId = string> {
  /** The stored result of a step; undefined when it has none yet. */
  get(id: Id): Promise<T | undefined> | T | undefined;
  /**
   * Stores a step's result unless one is stored already (the first one stays), and returns the
   * result that is stored.
   */
  put(id: Id, result: T): Promise<T> | T;
}

/** A step's result, and whether this call ran it (false: stored by an earlier or concurrent run). */
export interface StepRun<T> {
  result: T;
  ran: boolean;
}

const running = new WeakMap<object, Map<StepId, Promise<StepRun<unknown>>>>();

/**
 * Runs step `id` unless `store` has its result; stores what it returns. Resolves to the stored
 * result and whether this call ran `fn`; rejects (storing nothing) when `fn` throws.
 */
export async function runStepOnce<T, Id extends StepId>(
  store: StepStore<T, Id>,
  id: Id,
  fn: () => Promise<T> | T,
): Promise<StepRun<T>> {
  let inStore = running.get(store);
  const inFlight = inStore?.get(id) as Promise<StepRun<T>> | undefined;
  if (inFlight) return { result: (await inFlight).result, ran: false };
  if (!inStore) {
    inStore = new Map();
    running.set(store, inStore);
  }
  const run = (async (): Promise<StepRun<T>> => {
    const stored = await store.get(id);
    if (stored !== undefined) return { result: stored, ran: false };
    const result = await fn();
    return { result: await store.put(id, result), ran: true };
  })();
  const steps = inStore;
  steps.set(id, run);
  try {
    return await run;
  } finally {
    steps.delete(id);
  }
}

/** Runs step `id` unless `store` has its result (see runStepOnce); resolves to the stored result. */
export async function runStep<T, Id extends StepId>(
  store: StepStore<T, Id>,
  id: Id,
  fn: () => Promise<T> | T,
): Promise<T> {
  return (await runStepOnce(store, id, fn)).result;
}

/**
 * Step results kept in a Map (`entries`, when given, is used as it is: what is stored can be read
 * there). For tests, and for a run whose steps need not outlive it.
 */
export function memoryStepStore<T, Id extends StepId = string>(entries: Map<Id, T> = new Map()): StepStore<T, Id> {
  return {
    get: (id) => entries.get(id),
    put: (id, result) => {
      if (!entries.has(id)) entries.set(id, result);
      return entries.get(id) as T;
    },
  };
}
