// /api/account: the signed-in account (session cookie), its passkeys, sessions, channels, sites and keys.
import { Hono } from "hono";
import type { AppEnv } from "../http/context.js";
import { requireAccount, requireHubOrigin, signOutResponse } from "../accounts/session.js";

export const accountRoutes = new Hono<AppEnv>();

accountRoutes.use("*", requireHubOrigin());

accountRoutes.get("/", async (c) => {
  const account = await requireAccount(c);
  return c.json({ account });
});

accountRoutes.post("/sign-out", async (c) => {
  await signOutResponse(c);
  return c.json({ signedOut: true });
});
