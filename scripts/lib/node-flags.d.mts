export const NODE_FLAGS: Readonly<Record<string, readonly string[]>>;
export function nodeFlagsOf(service: string): string[];
