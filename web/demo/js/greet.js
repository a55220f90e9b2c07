// The home page's greeting, and WebMCP example 1: the simplest tool, registered with provideContext.
function greet(name) {
  const text = `Hello, ${name}!`;
  document.getElementById("greeting").textContent = text;
  return text;
}

document.getElementById("greetForm").addEventListener("submit", (event) => {
  event.preventDefault();
  greet(document.getElementById("greetName").value);
});

if ("modelContext" in navigator) {
  navigator.modelContext.provideContext({
    tools: [
      {
        name: "greet",
        title: "Greet someone",
        description: "Greets a person by name and shows the greeting on the page.",
        inputSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "The name of the person to greet" },
          },
          required: ["name"],
        },
        execute: ({ name }) => {
          return { content: [{ type: "text", text: greet(name) }] };
        },
      },
    ],
  });
}
showWebMcpStatus(["greet"]);
