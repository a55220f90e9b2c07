// The types of capture.generated.js, which scripts/lib/capture-script.mjs writes (gitignored) from capture.ts.
/** The capture script's text, for evaluateOnNewDocument. */
export declare const CAPTURE_SCRIPT: string;
