import { describe, expect, it } from "@jest/globals";
import { hashtagList, popupFeatures, SHARE_NETWORKS, shareUrl } from "./shareLinks.ts";

const content = {
  url: "https://kikitori.example/ja/summary",
  title: "Kikitori：インタビューのためのAI文字起こし",
  description: "要約も作れます。",
  hashtags: "AI文字起こし, #インタビュー ,, 文字 起こし",
};

describe("share links", () => {
  it("cleans the translated hashtag list", () => {
    expect(hashtagList(content.hashtags)).toEqual(["AI文字起こし", "インタビュー", "文字起こし"]);
    expect(hashtagList("")).toEqual([]);
  });

  it("builds each network's share URL with the page URL and the language's texts", () => {
    const params = (u: string) => new URL(u).searchParams;
    const fb = shareUrl("facebook", content);
    expect(fb.startsWith("https://www.facebook.com/sharer/sharer.php?")).toBe(true);
    expect(params(fb).get("u")).toBe(content.url);
    expect(params(fb).get("hashtag")).toBe("#AI文字起こし");

    const x = shareUrl("x", content);
    expect(x.startsWith("https://twitter.com/intent/tweet?")).toBe(true);
    expect(params(x).get("url")).toBe(content.url);
    expect(params(x).get("text")).toBe(`${content.title}\n${content.description}`);
    expect(params(x).get("hashtags")).toBe("AI文字起こし,インタビュー,文字起こし");

    const line = shareUrl("line", content);
    expect(line.startsWith("https://social-plugins.line.me/lineit/share?")).toBe(true);
    expect(params(line).get("url")).toBe(content.url);
    expect(params(line).get("text")).toContain("#インタビュー");

    const li = shareUrl("linkedin", content);
    expect(li).toBe(`https://www.linkedin.com/sharing/share-offsite/?url=${encodeURIComponent(content.url)}`);
  });

  it("covers the four networks", () => {
    expect(SHARE_NETWORKS).toEqual(["facebook", "x", "line", "linkedin"]);
  });

  it("centres the popup and keeps it on screen", () => {
    expect(popupFeatures(1600, 900)).toBe("popup=yes,width=600,height=640,left=500,top=130");
    expect(popupFeatures(375, 600)).toBe("popup=yes,width=600,height=640,left=0,top=0");
  });
});
