import { describe, expect, it } from "@jest/globals";
import { firstChoice, type Take, takesAfterSent } from "./useRecorder.ts";

const take = (index: number, sent = false): Take => ({
  index,
  whole: index < 0,
  number: index + 1,
  file: new File([], `part ${index}`),
  url: `blob:${index}`,
  seconds: 3,
  sent,
});

describe("the takes of a resumed recording", () => {
  const whole = take(-1);
  const parts = [take(0), take(1)];

  it("chooses the whole recording after Stop when the parts joined, else the last part", () => {
    expect(firstChoice([whole, ...parts])).toBe(0);
    expect(firstChoice(parts)).toBe(1);
    expect(firstChoice([])).toBe(0);
  });

  it("after the whole recording is sent, every take is sent", () => {
    const next = takesAfterSent([whole, ...parts], whole);
    expect(next.takes.map((t) => t.sent)).toEqual([true, true, true]);
    expect(next.selected).toBe(0);
  });

  it("after one part is sent, the whole recording is no longer offered and that part stays chosen", () => {
    const next = takesAfterSent([whole, ...parts], parts[1] as Take);
    expect(next.takes.map((t) => [t.index, t.sent])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(next.selected).toBe(1);
  });
});
