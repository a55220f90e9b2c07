// /api/account: passkey ceremonies (sign up, sign in, add a passkey), the signed-in account (session cookie),
// its passkeys and sessions, the channels and sites it owns and their keys, claiming, deleting the account.
import { Hono } from "../http/hono.js";
import {
  AuditQuerySchema,
  AddPasskeyVerifyBodySchema,
  ClaimChannelBodySchema,
  ClaimSiteBodySchema,
  CreatePublisherKeyBodySchema,
  RenamePasskeyBodySchema,
  SignInVerifyBodySchema,
  SignUpOptionsBodySchema,
  SignUpVerifyBodySchema,
} from "../../protocol/index.js";
import { readJson } from "../http/body.js";
import { query, type AppContext, type AppEnv } from "../http/context.js";
import { accountAudit } from "../channels/audit.js";
import { rateLimit } from "../http/rate-limit.js";
import { normalizeHost } from "../registry/origins.js";
import { closeChannelRelay } from "../maintenance.js";
import {
  deleteAccountSessions,
  requireAccount,
  requireHubOrigin,
  signInResponse,
  signOutResponse,
} from "../accounts/session.js";
import {
  addPasskeyOptions,
  completeAddPasskey,
  completeSignIn,
  completeSignUp,
  listPasskeys,
  passkeyView,
  removePasskey,
  renamePasskey,
  signInOptions,
  signUpOptions,
  type RelyingParty,
} from "../accounts/passkeys.js";
import {
  accountChannels,
  accountSites,
  claimChannel,
  claimSite,
  createPublisherKey,
  deleteAccount,
  revokePublisherKey,
} from "../accounts/ownership.js";

export const accountRoutes = new Hono<AppEnv>();

const relyingParty = (c: AppContext): RelyingParty => ({ origin: c.var.hub });

accountRoutes.use("*", requireHubOrigin());

const signUpLimit = rateLimit({
  limiter: "ANON_WRITES",
  action: "sign-up",
  what: "account creations from your address",
});
const signInLimit = rateLimit({
  limiter: "ANON_WRITES",
  action: "sign-in",
  what: "sign-in attempts from your address",
});

accountRoutes.post("/sign-up/options", signUpLimit, async (c) => {
  const { displayName } = await readJson(c, SignUpOptionsBodySchema);
  return c.json(await signUpOptions(c.var.db, relyingParty(c), displayName, c.var.now));
});

accountRoutes.post("/sign-up/verify", signUpLimit, async (c) => {
  const body = await readJson(c, SignUpVerifyBodySchema);
  const account = await completeSignUp(c.var.db, relyingParty(c), body, c.var.now);
  await signInResponse(c, account.id);
  return c.json({ account }, 201);
});

accountRoutes.post("/sign-in/options", signInLimit, async (c) => {
  return c.json(await signInOptions(c.var.db, relyingParty(c), c.var.now));
});

accountRoutes.post("/sign-in/verify", signInLimit, async (c) => {
  const body = await readJson(c, SignInVerifyBodySchema);
  const account = await completeSignIn(c.var.db, relyingParty(c), body, c.var.now);
  await signInResponse(c, account.id);
  return c.json({ account });
});

accountRoutes.get("/", async (c) => {
  const account = await requireAccount(c);
  const passkeys = await listPasskeys(c.var.db, account.id);
  return c.json({ account, passkeys: passkeys.map(passkeyView) });
});

accountRoutes.post("/sign-out", async (c) => {
  await signOutResponse(c);
  return c.json({ signedOut: true });
});

accountRoutes.post("/sign-out-everywhere", async (c) => {
  const account = await requireAccount(c);
  const ended = await deleteAccountSessions(c.var.db, account.id);
  await signOutResponse(c);
  return c.json({ signedOut: true, endedSessions: ended });
});

accountRoutes.delete("/", async (c) => {
  const account = await requireAccount(c);
  const result = await deleteAccount(c.var.db, account.id, closeChannelRelay(c.env));
  await signOutResponse(c);
  return c.json({ deleted: account.id, ...result });
});

accountRoutes.post("/passkeys/options", async (c) => {
  const account = await requireAccount(c);
  return c.json(await addPasskeyOptions(c.var.db, relyingParty(c), account, c.var.now));
});

accountRoutes.post("/passkeys/verify", async (c) => {
  const account = await requireAccount(c);
  const body = await readJson(c, AddPasskeyVerifyBodySchema);
  return c.json(
    { passkey: await completeAddPasskey(c.var.db, relyingParty(c), account.id, body, c.var.now) },
    201,
  );
});

accountRoutes.patch("/passkeys/:id", async (c) => {
  const account = await requireAccount(c);
  const { label } = await readJson(c, RenamePasskeyBodySchema);
  return c.json({ passkey: await renamePasskey(c.var.db, account.id, c.req.param("id"), label) });
});

accountRoutes.delete("/passkeys/:id", async (c) => {
  const account = await requireAccount(c);
  await removePasskey(c.var.db, account.id, c.req.param("id"));
  return c.json({ removed: c.req.param("id") });
});

accountRoutes.get("/channels", async (c) => {
  const account = await requireAccount(c);
  return c.json({ channels: await accountChannels(c.var.db, account.id) });
});

// The account's channels' audit logs merged, newest first (channels/audit.ts: at most 20 channels).
accountRoutes.get("/audit", async (c) => {
  const account = await requireAccount(c);
  return c.json(await accountAudit(c.env, c.var.db, account.id, query(c, AuditQuerySchema)));
});

accountRoutes.post("/channels/claim", async (c) => {
  const account = await requireAccount(c);
  const { ownerKey } = await readJson(c, ClaimChannelBodySchema);
  const result = await claimChannel(c.var.db, account.id, ownerKey);
  return c.json(result, result.claimed ? 201 : 200);
});

accountRoutes.get("/sites", async (c) => {
  const account = await requireAccount(c);
  return c.json({ sites: await accountSites(c.var.db, account.id) });
});

accountRoutes.post("/sites/claim", async (c) => {
  const account = await requireAccount(c);
  const { publisherKey } = await readJson(c, ClaimSiteBodySchema);
  const result = await claimSite(c.var.db, account.id, publisherKey);
  return c.json(result, result.claimed ? 201 : 200);
});

accountRoutes.post("/sites/:host/publisher-keys", async (c) => {
  const account = await requireAccount(c);
  const body = c.req.header("content-type")
    ? await readJson(c, CreatePublisherKeyBodySchema)
    : CreatePublisherKeyBodySchema.parse({});
  const host = normalizeHost(c.req.param("host"));
  const created = await createPublisherKey(c.var.db, account.id, host, body.label, c.var.now);
  return c.json({ ...created, note: "The publisher key is shown once. Store it now." }, 201);
});

accountRoutes.delete("/sites/:host/publisher-keys/:keyId", async (c) => {
  const account = await requireAccount(c);
  const host = normalizeHost(c.req.param("host"));
  await revokePublisherKey(c.var.db, account.id, host, c.req.param("keyId"), c.var.now);
  return c.json({ revoked: c.req.param("keyId") });
});
