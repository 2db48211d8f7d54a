/** The app mark: a sound wave in a rounded square. Decorative; the app name is next to it as text. */
export function Logo({ size = 32 }: { size?: number }) {
  return (
    <svg className="logo-mark" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="currentColor" />
      <g stroke="#fff" strokeWidth="2.5" strokeLinecap="round">
        <path d="M9 13v6" />
        <path d="M13.5 9v14" />
        <path d="M18 11.5v9" />
        <path d="M22.5 14v4" />
      </g>
    </svg>
  );
}
