// The dress shop page, and WebMCP examples 3 and 5: buyProduct asks the user through
// requestUserInteraction before it buys; get-dresses only reads (readOnlyHint: true).
const products = [
  { product_id: "dress-001", name: "Linen summer dress", size: 8, color: "white", price: 79 },
  { product_id: "dress-002", name: "Wrap dress", size: 10, color: "red", price: 95 },
  { product_id: "dress-003", name: "Velvet evening dress", size: 12, color: "black", price: 180 },
  { product_id: "dress-004", name: "Floral midi dress", size: 8, color: "blue", price: 69 },
  { product_id: "dress-005", name: "Knit sweater dress", size: 14, color: "green", price: 110 },
  { product_id: "dress-006", name: "Shirt dress", size: 6, color: "blue", price: 59 },
];
const orders = [];

/** The shop's product query (a server call on a real site). */
async function fetchProducts(size, color) {
  return products.filter(
    (p) =>
      (size === undefined || p.size === Number(size)) &&
      (!color || p.color.toLowerCase() === String(color).toLowerCase()),
  );
}

function renderProducts(list) {
  document.getElementById("productList").replaceChildren(
    ...list.map((product) => {
      const item = document.createElement("li");
      const title = document.createElement("strong");
      title.textContent = product.name;
      const meta = document.createElement("p");
      meta.className = "muted";
      meta.textContent = `${product.product_id} · EU ${product.size} · ${product.color} · €${product.price}`;
      const buy = document.createElement("button");
      buy.type = "button";
      buy.textContent = "Buy";
      buy.addEventListener("click", () => {
        if (confirm(`Buy ${product.name} for €${product.price}?`)) executePurchase(product.product_id);
      });
      item.append(title, meta, buy);
      return item;
    }),
  );
}

function executePurchase(productId) {
  const product = products.find((p) => p.product_id === productId);
  orders.push(product);
  const item = document.createElement("li");
  item.textContent = `${product.name} (${product.product_id}), €${product.price}`;
  document.getElementById("orderList").append(item);
  document.getElementById("orderMessage").textContent = `Ordered ${product.name}.`;
}

async function buyProduct({ product_id }, agent) {
  const product = products.find((p) => p.product_id === product_id);
  if (!product) throw new Error(`There is no product "${product_id}". Call get-dresses for the product ids.`);
  const confirmed = await agent.requestUserInteraction(async () => {
    return new Promise((resolve) => {
      const confirmed = confirm(
        `Buy product ${product_id} (${product.name}, €${product.price})?\nClick OK to confirm, Cancel to abort.`,
      );
      resolve(confirmed);
    });
  });
  if (!confirmed) {
    throw new Error("Purchase cancelled by user.");
  }
  executePurchase(product_id);
  return { content: [{ type: "text", text: `Product ${product_id} purchased.` }] };
}

document.getElementById("filterForm").addEventListener("submit", async (event) => {
  event.preventDefault();
  const size = document.getElementById("filterSize").value;
  const color = document.getElementById("filterColor").value;
  renderProducts(await fetchProducts(size === "" ? undefined : Number(size), color));
});

renderProducts(products);

if ("modelContext" in navigator) {
  navigator.modelContext.registerTool({
    name: "buyProduct",
    title: "Buy a product",
    description:
      "Use this tool to purchase a product given its unique product_id. The user confirms every purchase.",
    inputSchema: {
      type: "object",
      properties: {
        product_id: {
          type: "string",
          description: "The unique identifier for the product to be purchased.",
        },
      },
      required: ["product_id"],
    },
    execute: buyProduct,
  });

  navigator.modelContext.registerTool({
    name: "get-dresses",
    title: "List dresses",
    description: "Returns an array of product listings",
    inputSchema: {
      type: "object",
      properties: {
        size: { type: "number", description: "EU dress size (2-14)" },
        color: { type: "string", description: "Filter by color" },
      },
    },
    outputSchema: {
      type: "object",
      properties: {
        products: {
          type: "array",
          items: {
            type: "object",
            properties: {
              product_id: { type: "string" },
              name: { type: "string" },
              size: { type: "number" },
              color: { type: "string" },
              price: { type: "number", description: "Price in euros" },
            },
            required: ["product_id", "name", "size", "color", "price"],
          },
        },
      },
      required: ["products"],
    },
    annotations: {
      readOnlyHint: true,
    },
    execute: async ({ size, color }) => {
      const found = await fetchProducts(size, color);
      return {
        content: [{ type: "text", text: JSON.stringify(found) }],
        structuredContent: { products: found },
      };
    },
  });
}
showWebMcpStatus(["get-dresses", "buyProduct"]);
