export function nodeFlagsOf(service: string): string[];
