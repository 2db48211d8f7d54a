import { sectionProgress } from "../src/handlers/correct.ts";

describe("sectionProgress", () => {
  it("rises from 1 to 99 as sections finish", () => {
    expect([sectionProgress(0, 3), sectionProgress(1, 3), sectionProgress(2, 3), sectionProgress(3, 3)]).toEqual([
      1, 33, 66, 99,
    ]);
    expect(sectionProgress(0, 0)).toBe(1);
    expect(sectionProgress(1, 1)).toBe(99);
  });
});
