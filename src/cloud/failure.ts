// A run that produced no result of the tool's own ends with a RunFailure: a CloudFailure code and a message
// for the agent and the site owner (src/protocol/cloud.ts).
import type { CloudFailure } from "../protocol/index.js";

export class RunFailure extends Error {
  constructor(
    readonly failure: CloudFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Resolves or rejects with `promise`, or rejects with `onTimeout()` after `ms` (the promise runs on). */
export function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A page's own text, shortened and stripped of control characters, for a message. */
export function excerpt(text: string, max = 200): string {
  const clean = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, " ")
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
