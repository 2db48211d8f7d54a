import { describe, expect, it } from "@jest/globals";
import { SCROLL_TOP_THRESHOLD_PX, scrollTopVisible } from "./ScrollTopButton.tsx";

describe("back-to-top button", () => {
  it("wide screens: shown after 300 px of scroll, either direction", () => {
    expect(scrollTopVisible(SCROLL_TOP_THRESHOLD_PX, 0, false, false)).toBe(false);
    expect(scrollTopVisible(301, 0, false, false)).toBe(true);
    expect(scrollTopVisible(900, 1000, false, true)).toBe(true);
  });
  it("narrow screens: hidden while reading down, shown when scrolling back up", () => {
    expect(scrollTopVisible(1200, 1000, true, false)).toBe(false);
    expect(scrollTopVisible(1200, 1000, true, true)).toBe(false);
    expect(scrollTopVisible(1100, 1200, true, false)).toBe(true);
    expect(scrollTopVisible(1100, 1100, true, true)).toBe(true);
    expect(scrollTopVisible(200, 400, true, true)).toBe(false);
  });
});
