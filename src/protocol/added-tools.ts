// Marketplace tools added to a channel ("Add from the marketplace"): the owner's REST body. The
// channel's agents see an added tool from the site's current published manifest while no tab offers it.
import * as z from "zod";
import { LIMITS } from "./limits.js";

export const AddChannelToolsBodySchema = z
  .object({
    /** The site's host, as in /api/sites/:host. */
    host: z.string().min(1).max(253),
    /** The tools to add, by published name; absent: every tool of the site's current manifest. */
    tools: z.array(z.string().min(1).max(LIMITS.toolNameMax)).min(1).max(LIMITS.toolsPerProvider).optional(),
  })
  .strict();
export type AddChannelToolsBody = z.infer<typeof AddChannelToolsBodySchema>;
