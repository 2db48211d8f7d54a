/** The title and introduction at the top of a screen. */
export function PageHeader({
  title,
  lead,
  leadClassName = "lead",
}: {
  title: string;
  lead: string;
  leadClassName?: string;
}) {
  return (
    <header className="page-header">
      <h1 data-testid="page-title">{title}</h1>
      <p className={leadClassName}>{lead}</p>
    </header>
  );
}
