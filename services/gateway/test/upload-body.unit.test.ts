// The gateway-wide budget of upload bodies held in memory (services/gateway/src/jobs/upload-body.ts).
import { ByteBudget } from "../src/jobs/upload-body.ts";

it("holds whole bodies up to its limit, and gives each back once", () => {
  const budget = new ByteBudget(100);
  const first = budget.take(60);
  expect(budget.take(50)).toBeNull(); // would pass the limit: that body goes to disk
  const second = budget.take(40);
  expect(budget.inUse).toBe(100);
  first?.();
  first?.();
  expect(budget.inUse).toBe(40);
  second?.();
  expect(budget.inUse).toBe(0);
  expect(budget.take(100)).toEqual(expect.any(Function));
});
