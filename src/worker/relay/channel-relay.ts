// ChannelRelay: one Durable Object per channel (the live relay). The relay itself arrives with the relay
// issue; the class exists now so the binding and its SQLite-backed migration are in place from the start.
import { DurableObject } from "cloudflare:workers";

export class ChannelRelay extends DurableObject<Env> {
  override async fetch(_request: Request): Promise<Response> {
    return Response.json(
      { error: { code: "not_found", message: "Channels are not available yet." } },
      { status: 404 },
    );
  }
}
