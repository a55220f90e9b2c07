// window.webmcpHub as /bridge.js defines it at once: RelayHub, a stand-in with the whole scripting contract
// (pair(code), disconnect(), status, `statuschange`; toolCount and problem for the widget) that imports the
// relay itself, /bridge-relay.js (relay.ts), from the hub this script came from only when it is needed: at
// start when this origin has a pairing with that hub stored (pairing.ts), on pair(code), and when another tab
// of the origin pairs (the `storage` event). A page that never pairs fetches nothing more. The relay's client
// then keeps the state here (status, problem, toolCount), fires its events on this object (so listeners added
// before it loaded hear them) and follows the page's lifecycle itself (pagehide, pageshow, focus, storage).
// When the webmcp-hub extension relays the page, or the top-level document's bridge relays a subframe, the
// relay is never loaded and pair() is refused here. When the import fails (offline, a CSP whose script-src
// leaves out the hub, the file blocked), status stays "unpaired", the reason is the problem the widget shows,
// pair() rejects with it, and a console warning says so; a failed import is forgotten, so the next pair() or
// start tries again. Internal names are one letter on purpose: the minifier cannot rename properties.
import { forgetStored, pairingKey, readStored } from "./pairing.js";
import { CHANGE_EVENT, type ToolRegistry } from "./registry.js";
import type { HubState, HubStatus, RelayClient } from "./relay-client.js";
import type * as Relay from "./relay.js";
import type { BridgeUi } from "./ui-loader.js";

export interface RelayHubOptions {
  /** The hub's origin, from the bridge script's own src. */
  hubOrigin: string;
  /** The tools to relay (the registry, or the top-level document's RelayTools), watched for changes. */
  registry: Pick<ToolRegistry, "list" | "get"> & EventTarget;
  /** localStorage, or null where the page may not use it. */
  storage: Storage | null;
  /** The webmcp-hub extension relays this page: status "extension", the relay never loads. */
  viaExtension: boolean;
  /** In a subframe: true once the top-level document's bridge is known to relay the tab. */
  relayedByTop: () => boolean;
  /** The loader of /bridge-ui.js (ui-loader.ts), for the approval dialog. */
  ui(): Promise<typeof BridgeUi>;
}

// Fields are `declare`d where the constructor sets them or they start undefined: no field definitions to ship.
export class RelayHub extends EventTarget implements HubState {
  declare status: HubStatus;
  problem = "";
  toolCount = 0;
  declare readonly hubOrigin: string;
  /** The relay's client, once /bridge-relay.js has loaded. */
  declare private c: RelayClient | undefined;
  /** The import under way or done (undefined again after a failure). */
  declare private l: Promise<RelayClient> | undefined;

  constructor(private readonly o: RelayHubOptions) {
    super();
    this.hubOrigin = o.hubOrigin;
    this.status = o.viaExtension ? "extension" : "unpaired";
    o.registry.addEventListener(CHANGE_EVENT, () => this.c?.toolsChanged());
    addEventListener("storage", () => this.c || this.start());
  }

  /** Connects when a pairing with the hub is stored (loading the relay first). */
  start(): void {
    if (
      !this.o.viaExtension &&
      !this.o.relayedByTop() &&
      readStored(this.o.storage, pairingKey(this.hubOrigin))
    )
      this.r().then(
        (c) => c.start(),
        () => {},
      );
  }

  /** Redeems a pairing code for this page's origin, keeps the token and connects (loading the relay first). */
  async pair(code: string): Promise<{ channelId: string }> {
    if (this.o.viaExtension)
      throw this.f(
        "The webmcp-hub browser extension relays this page: pair the extension and allow this site in its popup.",
      );
    if (this.o.relayedByTop())
      throw this.f("The page this frame is in relays its tools: pair that page instead.");
    return (await this.r()).pair(code);
  }

  /** Disconnects this tab (and the other tabs of this origin) and forgets the token, loaded or not. */
  disconnect(): void {
    if (this.c) this.c.disconnect();
    else {
      forgetStored(this.o.storage, pairingKey(this.hubOrigin));
      this.f("");
    }
  }

  /** The top-level document's bridge relays this frame: close the socket, and connect no more. */
  standAside(): void {
    this.c?.standAside();
  }

  /** Imports /bridge-relay.js once (again after a failure) and makes the client. */
  private r(): Promise<RelayClient> {
    // A module that loads but does not fit (another build's) fails the same way: caught after the `then`.
    return (this.l ??= (import(`${this.hubOrigin}/bridge-relay.js`) as Promise<typeof Relay>)
      .then((m) => (this.c = new m.RelayClient({ ...this.o, hub: this })))
      .catch((e: unknown) => {
        this.l = undefined;
        const error = this.f(`The relay could not load from ${this.hubOrigin} (${(e as Error).message}).`);
        console.warn(`webmcp-hub: ${error.message}`);
        throw error;
      }));
  }

  /** Sets the problem the widget shows, tells listeners, and returns it as an Error. */
  private f(problem: string): Error {
    this.problem = problem;
    this.dispatchEvent(new CustomEvent("statuschange", { detail: { status: this.status } }));
    return new Error(problem);
  }
}
