// Types for capture-script.mjs.
export const CAPTURE_ENTRY: string;
export const CAPTURE_OUT: string;
export function buildCaptureScript(options?: { log?: (line: string) => void }): Promise<number>;
