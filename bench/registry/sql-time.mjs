// Bench Worker instrumentation: a D1 binding that adds up the SQL execution time D1 reports (`meta.duration`)
// for the request in progress, so a response can say how much of its latency was the query itself.
import { AsyncLocalStorage } from "node:async_hooks";

const requestSpend = new AsyncLocalStorage();
const targets = new WeakMap();

function record(result) {
  const spend = requestSpend.getStore();
  if (spend) {
    for (const r of Array.isArray(result) ? result : [result]) {
      spend.ms += r?.meta?.duration ?? 0;
      spend.queries += 1;
    }
  }
  return result;
}

function statement(stmt) {
  const wrapped = new Proxy(stmt, {
    get(target, prop) {
      if (prop === "bind") return (...args) => statement(target.bind(...args));
      if (prop === "all" || prop === "run") return () => target[prop]().then(record);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  targets.set(wrapped, stmt);
  return wrapped;
}

/** Wraps a D1 binding; `raw()` and `first()` report no duration and are passed through uncounted. */
export function timedDatabase(db) {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (query) => statement(target.prepare(query));
      if (prop === "batch")
        return (stmts) => target.batch(stmts.map((s) => targets.get(s) ?? s)).then(record);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Runs `handle` and adds `x-bench-sql-ms` (summed D1 durations) and `x-bench-sql-queries` to its response. */
export async function withSqlTime(handle) {
  const spend = { ms: 0, queries: 0 };
  const response = await requestSpend.run(spend, handle);
  const out = new Response(response.body, response);
  out.headers.set("x-bench-sql-ms", String(spend.ms));
  out.headers.set("x-bench-sql-queries", String(spend.queries));
  return out;
}
