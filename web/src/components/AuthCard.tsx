import type { ReactNode } from "react";

/** The centred card used by the account screens. */
export function AuthCard({ title, intro, children }: { title: string; intro?: string; children: ReactNode }) {
  return (
    <section className="auth-card card">
      <h1 data-testid="page-title">{title}</h1>
      {intro ? <p className="muted">{intro}</p> : null}
      {children}
    </section>
  );
}
