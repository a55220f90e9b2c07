// Evicts a Durable Object as the runtime does when it idles: its in-memory state is gone, its storage and
// hibernated WebSockets stay. workerd's own `workerd:unsafe` module does it. The Workers test pool that runs on
// Node 20 (@cloudflare/vitest-pool-workers 0.15, on wrangler 4.86) does not offer it as `cloudflare:test`'s
// evictDurableObject, as its successor @cloudflare/vitest-plugin (Node ≥ 22 only) does; package.json's
// `overrides` give the tree that successor's workerd, which has it.
import workerdUnsafe from "workerd:unsafe";

export async function evictDurableObject(stub: DurableObjectStub): Promise<void> {
  await workerdUnsafe.evict(stub, { webSockets: "hibernate" });
}
