// The table booking page: a declarative WebMCP tool. The form's attributes describe the tool; when an
// agent's call submits it, `event.agentInvoked` is true and `event.respondWith()` sends the agent its answer
// instead of navigating. A person's own submission takes the same path, without the answer.
const bookings = [];

document.getElementById("bookingForm").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const booking = {
    name: String(form.get("name")),
    date: String(form.get("date")),
    time: String(form.get("time")),
    guests: Number(form.get("guests")),
  };
  bookings.push(booking);
  const text = `Booked a table for ${booking.guests} on ${booking.date} at ${booking.time}, under ${booking.name}.`;
  const item = document.createElement("li");
  item.textContent = text;
  document.getElementById("bookingList").append(item);
  document.getElementById("bookingMessage").textContent = text;
  // An agent's submission keeps what it filled in on screen, for the user to see; a person's is cleared.
  if (event.agentInvoked && typeof event.respondWith === "function") event.respondWith(Promise.resolve(text));
  else if (!event.agentInvoked) event.target.reset();
});

document.getElementById("webmcp-status").textContent =
  "modelContext" in navigator || "modelContext" in document
    ? "WebMCP is available: the form above is the tool book-table."
    : "This browser has no WebMCP; the form works as usual.";
