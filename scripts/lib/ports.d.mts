// Types for ports.mjs.
export function isPortFree(port: number, host?: string): Promise<boolean>;
export function freePort(host?: string): Promise<number>;
export function parsePort(value: string | undefined, name: string, fallback: number): number;
