// The demo site's cloud runs, off and on with its owner's switch (PUT /api/sites/:host/cloud). The demo marks its
// read-only tools `"cloud": true`; tests of the tab path (Try it in a tab, opening an added tool's page on
// demand) turn the site's cloud runs off while they run, so those tools go through a tab as they did before.
import { afterAll, beforeAll, expect, inject } from "vitest";

export async function setDemoCloud(enabled: boolean): Promise<void> {
  const res = await fetch(`${inject("hubUrl")}/api/sites/${encodeURIComponent(inject("demoHost"))}/cloud`, {
    method: "PUT",
    headers: { authorization: `Bearer ${inject("demoPublisherKey")}`, "content-type": "application/json" },
    body: JSON.stringify({ enabled }),
  });
  expect(res.status).toBe(200);
}

/** At a test file's top level: the demo site's cloud runs are off while the file's tests run. */
export function demoCloudOffDuringTheseTests(): void {
  beforeAll(() => setDemoCloud(false));
  afterAll(() => setDemoCloud(true));
}
