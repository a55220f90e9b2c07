// The one Node.js API the Worker uses (workerd provides it under the `nodejs_compat` flag): AsyncLocalStorage,
// typed here as far as the Worker uses it, since the Worker's tsconfig carries no @types/node.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, callback: () => R): R;
    getStore(): T | undefined;
  }
}
