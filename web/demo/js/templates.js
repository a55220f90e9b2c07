// The template gallery and editor, and WebMCP example 4: filter-templates is provided when the page
// loads; edit-design is registered while the editor is open and unregistered when it closes.
const templates = [
  { id: "t1", name: "Birthday card", tags: "birthday party card celebration", background: "#d9480f" },
  { id: "t2", name: "Wedding invitation", tags: "wedding invitation card elegant", background: "#5c4033" },
  { id: "t3", name: "Bake sale poster", tags: "poster bake sale school", background: "#2b8a3e" },
  { id: "t4", name: "Concert flyer", tags: "flyer music concert night", background: "#1c1c5a" },
  { id: "t5", name: "Thank-you card", tags: "thank you card", background: "#a61e4d" },
];
let design = null;
let editDesignRegistered = false;

function filterTemplates(description) {
  const words = String(description ?? "")
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean);
  const shown = templates.filter((t) => {
    const haystack = `${t.name} ${t.tags}`.toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
  const list = document.getElementById("templateList");
  list.replaceChildren(
    ...shown.map((template) => {
      const item = document.createElement("li");
      const name = document.createElement("strong");
      name.textContent = template.name;
      const open = document.createElement("button");
      open.type = "button";
      open.textContent = "Open in editor";
      open.addEventListener("click", () => openEditor(template.id));
      item.append(name, document.createElement("br"), open);
      return item;
    }),
  );
  document.getElementById("templateFilter").value = description ?? "";
  return shown;
}

function renderDesign() {
  const preview = document.getElementById("designPreview");
  preview.style.background = design.background;
  document.getElementById("designTitle").textContent = design.title;
  document.getElementById("designText").textContent = design.text;
}

/** Applies instructions like `background to navy; title to "Hi"; text to "See you"`. */
function editDesign(instructions) {
  const applied = [];
  const background = /background(?:\s+colou?r)?\s+(?:to\s+)?(#[0-9a-f]{3,8}|[a-z]+)/i.exec(instructions);
  if (background) {
    design.background = background[1];
    applied.push(`background is now ${background[1]}`);
  }
  for (const field of ["title", "text"]) {
    const match = new RegExp(`${field}\\s+(?:to\\s+)?["“']([^"”']*)["”']`, "i").exec(instructions);
    if (match) {
      design[field] = match[1];
      applied.push(`${field} is now "${match[1]}"`);
    }
  }
  if (applied.length === 0) {
    throw new Error(
      'No change understood. Say what to change, like: background to navy; title to "Happy birthday"; text to "See you at 8".',
    );
  }
  renderDesign();
  return applied.join(", ");
}

function onDesignEditorOpened() {
  if (!("modelContext" in navigator) || editDesignRegistered) return;
  navigator.modelContext.registerTool({
    name: "edit-design",
    title: "Edit the open design",
    description:
      "Makes changes to the current design based on instructions. Only available while a design is open in the editor.",
    inputSchema: {
      type: "object",
      properties: {
        instructions: {
          type: "string",
          description:
            'What to change, like: background to navy; title to "Happy birthday"; text to "See you at 8"',
        },
      },
      required: ["instructions"],
    },
    execute: ({ instructions }) => ({
      content: [{ type: "text", text: `Design "${design.name}" changed: ${editDesign(instructions)}.` }],
    }),
  });
  editDesignRegistered = true;
}

function onDesignEditorClosed() {
  if (!("modelContext" in navigator) || !editDesignRegistered) return;
  navigator.modelContext.unregisterTool("edit-design");
  editDesignRegistered = false;
}

function openEditor(id) {
  const template = templates.find((t) => t.id === id);
  design = { name: template.name, background: template.background, title: template.name, text: "" };
  document.getElementById("editor").hidden = false;
  document.getElementById("editorName").textContent = template.name;
  renderDesign();
  onDesignEditorOpened();
}

function closeEditor() {
  document.getElementById("editor").hidden = true;
  design = null;
  onDesignEditorClosed();
}

document.getElementById("filterForm").addEventListener("submit", (event) => {
  event.preventDefault();
  filterTemplates(document.getElementById("templateFilter").value);
});
document.getElementById("editForm").addEventListener("submit", (event) => {
  event.preventDefault();
  const message = document.getElementById("editMessage");
  try {
    message.textContent = editDesign(document.getElementById("editInstructions").value);
  } catch (e) {
    message.textContent = e.message;
  }
});
document.getElementById("closeEditor").addEventListener("click", closeEditor);

filterTemplates("");

if ("modelContext" in navigator) {
  navigator.modelContext.provideContext({
    tools: [
      {
        name: "filter-templates",
        title: "Filter templates",
        description: "Filter the list of templates based on a description",
        inputSchema: {
          type: "object",
          properties: {
            description: {
              type: "string",
              description: 'Words describing the templates to show, like "birthday card"; empty shows all',
            },
          },
          required: ["description"],
        },
        execute: ({ description }) => {
          const shown = filterTemplates(description);
          const names = shown.map((t) => t.name).join(", ");
          return {
            content: [{ type: "text", text: shown.length ? `Showing ${names}.` : "No template matches." }],
          };
        },
      },
    ],
  });
}
showWebMcpStatus(["filter-templates", "edit-design (while the editor is open)"]);
