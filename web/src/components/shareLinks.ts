/** Share URLs of the four networks: Facebook, X/Twitter, LINE, LinkedIn. Pure, unit-tested. */
export const SHARE_NETWORKS = ["facebook", "x", "line", "linkedin"] as const;
export type ShareNetwork = (typeof SHARE_NETWORKS)[number];

export const NETWORK_NAMES: Record<ShareNetwork, string> = {
  facebook: "Facebook",
  x: "X",
  line: "LINE",
  linkedin: "LinkedIn",
};

export interface ShareContent {
  url: string;
  title: string;
  description: string;
  /** Comma-separated, without "#" (the translation's share.hashtags). */
  hashtags: string;
}

/** "AI文字起こし, #Interview ,," → ["AI文字起こし", "Interview"]: no "#", no spaces, no empties. */
export function hashtagList(hashtags: string): string[] {
  return hashtags
    .split(/[,、，]/)
    .map((h) => h.trim().replace(/^#+/, "").replace(/\s+/g, ""))
    .filter((h) => h.length > 0);
}

export function shareUrl(network: ShareNetwork, c: ShareContent): string {
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  const tags = hashtagList(c.hashtags);
  switch (network) {
    case "facebook":
      // Facebook takes the page URL and at most one hashtag; title and description come from og: tags.
      return `https://www.facebook.com/sharer/sharer.php?${q({ u: c.url, ...(tags[0] ? { hashtag: `#${tags[0]}` } : {}) })}`;
    case "x":
      return `https://twitter.com/intent/tweet?${q({ url: c.url, text: `${c.title}\n${c.description}`, hashtags: tags.join(",") })}`;
    case "line":
      return `https://social-plugins.line.me/lineit/share?${q({ url: c.url, text: `${c.title}\n${c.description} ${tags.map((t) => `#${t}`).join(" ")}` })}`;
    case "linkedin":
      // LinkedIn reads everything else from the page's og: tags.
      return `https://www.linkedin.com/sharing/share-offsite/?${q({ url: c.url })}`;
  }
}

/** Popup features: a centred 600×640 window (falls back to a new tab where popups are not allowed). */
export function popupFeatures(screenW: number, screenH: number, w = 600, h = 640): string {
  const left = Math.max(0, Math.round((screenW - w) / 2));
  const top = Math.max(0, Math.round((screenH - h) / 2));
  return `popup=yes,width=${w},height=${h},left=${left},top=${top}`;
}
