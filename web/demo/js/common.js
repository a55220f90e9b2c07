// Shared by every demo page: says whether this browser offers WebMCP and which tools the page registers.
function showWebMcpStatus(toolNames) {
  const status = document.getElementById("webmcp-status");
  if (!status) return;
  const list = toolNames.join(", ");
  status.textContent =
    "modelContext" in navigator
      ? `WebMCP is available: this page registers ${list}.`
      : `This browser has no WebMCP (navigator.modelContext), so this page cannot offer ${list} to agents; it works as usual.`;
}
