// The stamp collection page, and WebMCP example 2: the add-stamp tool reuses the page's own addStamp.
const stamps = [
  {
    name: "Penny Black",
    description: "The world's first adhesive postage stamp",
    year: 1840,
    imageUrl: null,
  },
  {
    name: "Inverted Jenny",
    description: "A US airmail stamp printed upside down",
    year: 1918,
    imageUrl: null,
  },
];

function renderStamps() {
  const list = document.getElementById("stampList");
  list.replaceChildren(
    ...stamps.map((stamp) => {
      const item = document.createElement("li");
      const title = document.createElement("strong");
      title.textContent = `${stamp.name} (${stamp.year})`;
      const description = document.createElement("p");
      description.textContent = stamp.description;
      item.append(title, description);
      if (stamp.imageUrl) {
        const image = document.createElement("img");
        image.src = stamp.imageUrl;
        image.alt = stamp.name;
        image.width = 120;
        item.append(image);
      }
      return item;
    }),
  );
  document.getElementById("stampCount").textContent = String(stamps.length);
}

function addStamp(name, description, year, imageUrl) {
  stamps.push({ name, description, year: Number(year), imageUrl: imageUrl || null });
  document.getElementById("confirmationMessage").textContent = `Stamp "${name}" added successfully!`;
  renderStamps();
}

document.getElementById("addStampForm").addEventListener("submit", (event) => {
  event.preventDefault();
  addStamp(
    document.getElementById("stampName").value,
    document.getElementById("stampDescription").value,
    document.getElementById("stampYear").value,
    document.getElementById("stampImageUrl").value,
  );
  event.target.reset();
});

renderStamps();

if ("modelContext" in navigator) {
  navigator.modelContext.provideContext({
    tools: [
      {
        name: "add-stamp",
        title: "Add a stamp",
        description: "Add a new stamp to the collection",
        inputSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "The name of the stamp" },
            description: { type: "string", description: "A brief description" },
            year: { type: "number", description: "The year issued" },
            imageUrl: { type: "string", description: "Optional image URL" },
          },
          required: ["name", "description", "year"],
        },
        execute({ name, description, year, imageUrl }) {
          addStamp(name, description, year, imageUrl);
          return {
            content: [{ type: "text", text: `Stamp "${name}" added! Collection: ${stamps.length} stamps.` }],
          };
        },
      },
    ],
  });
}
showWebMcpStatus(["add-stamp"]);
