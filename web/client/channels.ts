// Entry of /assets/channels.js: the channel list on /channels (web/client/channel/list.ts) and the channel
// console on /channels/:id (web/client/channel/console.ts). The page says which by the elements it renders.
import { $ } from "./lib/dom.js";
import { listPage } from "./channel/list.js";
import { consolePage } from "./channel/console.js";

const consoleHead = $("console-head");
if ($("create-form")) listPage();
if (consoleHead) consolePage(consoleHead.dataset.channel ?? "", consoleHead.dataset.hub ?? location.origin);
