export const PRIVATE_DIR_MODE: number;
export const PRIVATE_FILE_MODE: number;
export function makePrivateDir(dir: string): void;
export function tightenTree(dir: string): void;
