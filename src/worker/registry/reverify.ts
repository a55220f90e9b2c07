// Verification that stays true: a Cron Trigger re-checks listed sites with the method they were
// verified by (verify.ts: the well-known file, or the DNS TXT record over DNS-over-HTTPS) against the token of
// the challenge their latest verification answered (kept past its expiry for this: sites.ts notProofOnRecord).
//
// Decisions:
// - Each run checks a bounded batch (REVERIFY_BATCH), oldest verify_checked_at first (never checked first), of
//   sites not checked in the last REVERIFY_INTERVAL_MS: with the hourly schedule, each site about once a day.
// - Verified and lapsed (`unverified`) sites are checked; delisted and pending ones are not. A success resets
//   verify_failures and verify_error and restores a lapsed site to verified.
// - A failure is the proof not holding (verification_failed) or, for the http method, the site not answering
//   (upstream_failed: a site that cannot be read proves nothing). A failing DNS-over-HTTPS resolver is the
//   hub's problem, not the site's: nothing is counted (the check is tried again next run).
// - The third failure in a row sets status `unverified` and bumps updated_at (feeds carry the new status). A
//   lapsed site leaves search and listings (they list verified sites only) but its pages still answer, showing
//   "Verification lapsed: <reason>, <when>". Its publisher key keeps working: a successful republish restores it.
// - A site verified before tokens were kept has no proof on record: it is skipped (checked_at moves on) and
//   stays verified until its owner verifies again.
// - A site that passes has its ai-catalog.json read again (site-catalog.ts) in the same bounded batch; what
//   the catalog holds never changes the outcome of the check.
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";
import { readSiteCatalog } from "./site-catalog.js";
import { checkOwnershipProof, type ProofContext, type VerificationMethod } from "./verify.js";

/** wrangler.toml [triggers]: this schedule re-verifies sites; any other (the daily one) runs the maintenance. */
export const REVERIFY_CRON = "41 * * * *";
export const REVERIFY_BATCH = 50;
export const REVERIFY_INTERVAL_MS = 20 * 60 * 60 * 1000;
/** Failures in a row that lapse a verification. */
export const LAPSE_AFTER_FAILURES = 3;
/** Checks run at once (a Worker keeps at most 6 outbound connections open). */
const CONCURRENCY = 6;
const REASON_MAX = 300;

export interface ReverifyReport {
  checked: number;
  passed: number;
  failed: number;
  lapsed: number;
  restored: number;
  skipped: number;
}

interface DueSite {
  host: string;
  origin: string;
  status: "verified" | "unverified";
  verification_method: VerificationMethod | null;
  verify_failures: number;
  token: string | null;
}

type Outcome = "passed" | "failed" | "lapsed" | "restored" | "skipped";

export async function runReverification(
  db: Db,
  now: number,
  proof: ProofContext,
  limit = REVERIFY_BATCH,
  /** Told of each site whose status changed (lapsed or restored): channels that added its tools hear it. */
  statusChanged: (host: string) => Promise<unknown> = async () => {},
): Promise<ReverifyReport> {
  const due = await db.all<DueSite>(sql`SELECT s.host, s.origin, s.status, s.verification_method,
      s.verify_failures,
      (SELECT c.token FROM challenges c WHERE c.host = s.host AND c.used_at IS NOT NULL
        ORDER BY c.used_at DESC, c.rowid DESC LIMIT 1) AS token
    FROM sites s
    WHERE s.status IN ('verified', 'unverified') AND s.delisted_at IS NULL
      AND (s.verify_checked_at IS NULL OR s.verify_checked_at <= ${now - REVERIFY_INTERVAL_MS})
    ORDER BY s.verify_checked_at IS NOT NULL, s.verify_checked_at, s.host
    LIMIT ${limit}`);
  const report: ReverifyReport = { checked: 0, passed: 0, failed: 0, lapsed: 0, restored: 0, skipped: 0 };
  for (let i = 0; i < due.length; i += CONCURRENCY) {
    const batch = due.slice(i, i + CONCURRENCY);
    const outcomes = await Promise.all(batch.map((s) => recheck(db, s, now, proof)));
    for (const [j, o] of outcomes.entries()) {
      report.checked++;
      report[o]++;
      if (o === "lapsed" || o === "restored") await statusChanged(batch[j]!.host);
    }
  }
  return report;
}

async function recheck(db: Db, site: DueSite, now: number, proof: ProofContext): Promise<Outcome> {
  if (!site.token || !site.verification_method) {
    await db.run(sql`UPDATE sites SET verify_checked_at = ${now} WHERE host = ${site.host}`);
    return "skipped";
  }
  const hostname = new URL(site.origin).hostname.replace(/^\[|\]$/g, "");
  let reason: string | null = null;
  try {
    await checkOwnershipProof(
      { origin: site.origin, host: site.host, hostname },
      site.verification_method,
      site.token,
      proof,
    );
  } catch (e) {
    const resolverDown =
      site.verification_method === "dns" && e instanceof HubError && e.code === "upstream_failed";
    if (resolverDown || !(e instanceof HubError)) {
      if (!(e instanceof HubError)) console.warn(`re-verification of ${site.host} failed: ${String(e)}`);
      await db.run(sql`UPDATE sites SET verify_checked_at = ${now} WHERE host = ${site.host}`);
      return "skipped";
    }
    reason = e.message.slice(0, REASON_MAX);
  }
  if (reason === null) {
    // Passed: reset; a lapsed site is verified again (and feeds see it).
    const restored = site.status === "unverified";
    await db.run(sql`UPDATE sites SET verify_failures = 0, verify_error = NULL, verify_checked_at = ${now},
        status = 'verified' ${restored ? sql`, updated_at = ${now}` : sql``}
      WHERE host = ${site.host} AND status = ${site.status}`);
    await readSiteCatalog(db, site, now, proof).catch((e) =>
      console.warn(`catalog of ${site.host}: ${String(e)}`),
    );
    return restored ? "restored" : "passed";
  }
  const failures = site.verify_failures + 1;
  const lapses = site.status === "verified" && failures >= LAPSE_AFTER_FAILURES;
  await db.run(sql`UPDATE sites SET verify_failures = ${failures}, verify_error = ${reason},
      verify_checked_at = ${now} ${lapses ? sql`, status = 'unverified', updated_at = ${now}` : sql``}
    WHERE host = ${site.host} AND status = ${site.status}`);
  return lapses ? "lapsed" : "failed";
}
