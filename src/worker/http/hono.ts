// The Hono class every app and sub-app of the Worker is built with: hono's "tiny" preset (PatternRouter), not
// the default SmartRouter over RegExpRouter and TrieRouter. Sub-apps' routes are merged into the top app's
// router (app.route), so one router matches every request; PatternRouter's linear scan of the hub's ~150
// routes is a few microseconds, and dropping the other routers keeps ~2 KiB gzipped off the Worker's 300 KiB
// budget (scripts/check-worker-size.mjs).
export { Hono } from "hono/tiny";
