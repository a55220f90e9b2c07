// Entry of /assets/publish.js: the publish flow on /publish, over the REST API: register → challenge (HTTP
// file or DNS TXT) → verify → publisher key (shown once; this browser keeps a copy; rotation) → manifest
// (pasted or uploaded; field issues point at the exact place in the text) → the published version. Each step is
// a module of publish/ with one entry function; they share the PublishPage made here (publish/steps.ts).
import { setupKey } from "./publish/key.js";
import { setupManifest } from "./publish/manifest.js";
import { setupMySites } from "./publish/my-sites.js";
import { setupRegister } from "./publish/register.js";
import { resumeFlow, type PublishPage } from "./publish/steps.js";
import { setupVerify } from "./publish/verify.js";

// A step calls another through the page; each call goes to the function the owning step's setup returned.
const page: PublishPage = {
  host: null,
  renderMySites: () => renderMySites(),
  showChallenge: (host, focus) => showChallenge(host, focus),
  showKey: (key) => showKey(key),
  openManifest: (host, options) => openManifest(host, options),
};
const renderMySites = setupMySites(page);
setupRegister(page);
const showChallenge = setupVerify(page);
const showKey = setupKey(page);
const openManifest = setupManifest(page);
resumeFlow(page);
