// The reading list page, written against today's WebMCP draft (document.modelContext): tools registered
// with registerTool(tool, {signal}); aborting the signal unregisters them. list-books only reads, and its
// titles come from whoever added them (untrustedContentHint). The tools return plain values and strings;
// the bridge turns them into MCP results.
const books = [
  { title: "The Left Hand of Darkness", author: "Ursula K. Le Guin", read: true },
  { title: "Middlemarch", author: "George Eliot", read: false },
];

function renderBooks() {
  document.getElementById("bookList").replaceChildren(
    ...books.map((book) => {
      const item = document.createElement("li");
      const title = document.createElement("strong");
      title.textContent = book.title;
      if (book.read) title.className = "done";
      const author = document.createElement("p");
      author.className = "muted";
      author.textContent = `${book.author}${book.read ? " · read" : ""}`;
      item.append(title, author);
      return item;
    }),
  );
}

function addBook(title, author) {
  if (books.some((b) => b.title.toLowerCase() === title.toLowerCase())) {
    throw new Error(`"${title}" is already on the list.`);
  }
  books.push({ title, author, read: false });
  document.getElementById("readingMessage").textContent = `Added "${title}".`;
  renderBooks();
}

function markRead(title) {
  const book = books.find((b) => b.title.toLowerCase() === String(title).toLowerCase());
  if (!book) throw new Error(`"${title}" is not on the list. Call list-books for the titles.`);
  book.read = true;
  document.getElementById("readingMessage").textContent = `Marked "${book.title}" as read.`;
  renderBooks();
  return book;
}

document.getElementById("addBookForm").addEventListener("submit", (event) => {
  event.preventDefault();
  try {
    addBook(document.getElementById("bookTitle").value, document.getElementById("bookAuthor").value);
    event.target.reset();
  } catch (e) {
    document.getElementById("readingMessage").textContent = e.message;
  }
});

renderBooks();

const modelContext = "modelContext" in document ? document.modelContext : null;
let editTools = null;

function registerEditTools() {
  editTools = new AbortController();
  const { signal } = editTools;
  const failed = (e) => {
    if (!signal.aborted) console.error(e);
  };
  modelContext
    .registerTool(
      {
        name: "add-book",
        title: "Add a book",
        description: "Adds a book to the reading list.",
        inputSchema: {
          type: "object",
          properties: {
            title: { type: "string", description: "The book's title" },
            author: { type: "string", description: "The book's author" },
          },
          required: ["title", "author"],
        },
        execute: ({ title, author }) => {
          addBook(title, author);
          return `Added "${title}" by ${author}. The list has ${books.length} books.`;
        },
      },
      { signal },
    )
    .catch(failed);
  modelContext
    .registerTool(
      {
        name: "mark-book-read",
        title: "Mark a book as read",
        description: "Marks a book on the reading list as read.",
        inputSchema: {
          type: "object",
          properties: { title: { type: "string", description: "The title of a book on the list" } },
          required: ["title"],
        },
        execute: ({ title }) => markRead(title),
      },
      { signal },
    )
    .catch(failed);
}

if (modelContext) {
  modelContext.registerTool({
    name: "list-books",
    title: "List books",
    description: "Lists the books on the reading list, and whether each has been read.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true, untrustedContentHint: true },
    execute: () => ({ books: books.map((b) => ({ ...b })) }),
  });
  registerEditTools();
  document.getElementById("agentEdits").addEventListener("change", (event) => {
    if (event.target.checked) registerEditTools();
    else editTools.abort();
  });
  modelContext.addEventListener("toolactivated", (event) => {
    document.getElementById("agentActivity").textContent = `An agent is using ${event.toolName}.`;
  });
}

const status = document.getElementById("webmcp-status");
status.textContent = modelContext
  ? "WebMCP is available: this page registers list-books, add-book and mark-book-read."
  : "This browser has no WebMCP (document.modelContext); the list works as usual.";
