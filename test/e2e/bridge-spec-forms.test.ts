// Declarative <form toolname> tools of /bridge.js in a real Chromium: the inputSchema from a form's
// controls, autosubmit and respondWith (whatever order the page's submit listeners run in), focus without
// autosubmit, validation, the data-tool-*-active marks standing in for the pseudo-classes, forms appearing,
// changing and going, and aborts. The forms come from fixtures/bridge-spec-forms.html. Setup: bridge-spec-helpers.ts.
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import {
  useBridgeSpec,
  open,
  hubUrl,
  SPEC,
  newPage,
  type Doc,
  type Win,
  type ToolEvent,
} from "./bridge-spec-helpers.js";

useBridgeSpec();

let forms: string;
beforeAll(async () => {
  forms = await readFile(new URL("./fixtures/bridge-spec-forms.html", import.meta.url), "utf8");
});

describe("declarative <form toolname> tools", () => {
  it("a tool form is a tool whose inputSchema comes from its controls", async () => {
    const page = await open({ body: forms });
    const tools = await page.evaluate(async () =>
      (await (document as unknown as Doc).modelContext.getTools()).map(({ window: _, ...rest }) => rest),
    );
    expect(tools.map((t) => t.name)).toEqual(["add-stamp", "search"]);
    expect(tools[0]).toEqual({
      name: "add-stamp",
      title: "",
      description: "Add a stamp to the collection",
      origin: new URL(hubUrl).origin,
      inputSchema: JSON.stringify({
        type: "object",
        properties: {
          name: { type: "string", description: "The stamp's name" },
          year: { type: "number", minimum: 1840, maximum: 2100, description: "Year issued" },
          rating: { type: "number", minimum: 0, maximum: 10 },
          rare: { type: "boolean", description: "Rare" },
          country: { type: "string", enum: ["fr", "jp"], description: "Country of issue" },
          tags: { type: "array", items: { type: "string", enum: ["bird", "ship", "flower"] } },
          condition: { type: "string", enum: ["mint", "used"], description: "mint or used" },
          perf: { type: "array", items: { type: "string", enum: ["comb", "line"] } },
          notes: { type: "string", minLength: 2, maxLength: 200 },
        },
        required: ["name", "condition"],
      }),
    });
  });

  it("a toolautosubmit form is filled (input and change fire where a value changes), toolactivated fires, it is submitted with agentInvoked, and respondWith's value is the result", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      const form = document.getElementById("stamp") as HTMLFormElement;
      const events: string[] = [];
      for (const el of Array.from(form.elements)) {
        if (!(el as HTMLInputElement).name) continue; // The fieldset sees its radios' events bubble.
        for (const type of ["input", "change"]) {
          el.addEventListener(type, () => events.push(`${type}:${(el as HTMLInputElement).name}`));
        }
      }
      let nameAtActivation = "";
      mc.addEventListener(
        "toolactivated",
        () => (nameAtActivation = (form.elements.namedItem("name") as HTMLInputElement).value),
      );
      const tool = (await mc.getTools()).find((t) => t.name === "add-stamp")!;
      const input = {
        name: "Penny Black",
        year: 1840,
        rare: true,
        country: "jp",
        tags: ["bird", "flower"],
        condition: "used",
        perf: ["line"],
        notes: "the first",
      };
      const result = await mc.executeTool(tool, input);
      const firstEvents = events.splice(0);
      await mc.executeTool(tool, input); // The same values again: nothing changes, no events.
      return {
        result,
        nameAtActivation,
        firstEvents,
        secondEvents: events,
        submits: w.submits,
        listed: Array.from(document.querySelectorAll("#stamps li")).map((li) => li.textContent),
      };
    });
    expect(seen.result).toBe('{"content":[{"type":"text","text":"Stamp Penny Black added"}]}');
    expect(seen.nameAtActivation).toBe("Penny Black");
    expect(seen.firstEvents).toEqual(
      ["name", "year", "rare", "country", "tags", "condition", "perf", "notes"].flatMap((n) => [
        `input:${n}`,
        `change:${n}`,
      ]),
    );
    expect(seen.secondEvents).toEqual([]);
    const data = {
      name: "Penny Black",
      year: "1840",
      rating: "5",
      rare: "on",
      country: "jp",
      tags: ["bird", "flower"],
      condition: "used",
      perf: ["line"],
      notes: "the first",
      csrf: "token-123",
      go: "add",
    };
    expect(seen.submits).toEqual([
      { agentInvoked: true, data },
      { agentInvoked: true, data },
    ]);
    expect(seen.listed).toEqual(["Penny Black", "Penny Black"]);
  });

  it("without toolautosubmit the submit button gets focus and the call waits for the user to submit", async () => {
    const page = await open({ body: forms });
    await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const tool = (await mc.getTools()).find((t) => t.name === "search")!;
      (window as unknown as { call: Promise<unknown> }).call = mc.executeTool(tool, { q: "ship" });
    });
    await page.waitForFunction(() => document.activeElement?.id === "search-button");
    expect(await page.inputValue("input[name=q]")).toBe("ship");
    expect(await page.evaluate(() => (window as unknown as Win).submits.length)).toBe(0);
    await page.click("#search-button");
    const result = await page.evaluate(() => (window as unknown as { call: Promise<unknown> }).call);
    expect(result).toBe('3 stamps match "ship"');
    expect(await page.evaluate(() => (window as unknown as Win).submits)).toEqual([
      { agentInvoked: true, q: "ship" },
    ]);
  });

  it("fields the inputSchema cannot check fail the call with the browser's validation messages, and the form is not submitted", async () => {
    // What the schema says (required, minimum…) executeTool checks first (a DataError); the form's own
    // constraints beyond it (type=email, pattern) are the browser's, checked before an autosubmit.
    const page = await open({
      body: `<form id="join" toolname="join" tooldescription="Join the club" toolautosubmit>
          <input name="mail" type="email"><input name="code" pattern="[a-z]+"><button>Join</button></form>`,
    });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      let submitted = 0;
      document.getElementById("join")!.addEventListener("submit", () => submitted++);
      const tool = (await mc.getTools()).find((t) => t.name === "join")!;
      return {
        outcome: await (window as unknown as Win).outcome(
          mc.executeTool(tool, { mail: "not an address", code: "ABC" }),
        ),
        submitted,
        active: document.querySelectorAll("[data-tool-form-active], [data-tool-submit-active]").length,
      };
    });
    expect(seen).toMatchObject({ submitted: 0, active: 0, outcome: { ok: false, name: "UnknownError" } });
    const message = (seen.outcome as { message: string }).message;
    expect(message).toMatch(/^The form was not submitted\. mail: [^:]+ code: [^:]+$/);
  });

  it("agentInvoked and respondWith() answer page listeners that run before the bridge's (document capture, the form itself), call after call; a submit no agent started has agentInvoked false and cannot respondWith()", async () => {
    const page = await open({
      body: `<iframe name="sink" hidden></iframe>
        <form id="fruit" toolname="pick_fruit" tooldescription="Pick fruit" toolautosubmit target="sink" action="about:blank">
          <select name="fruit" multiple><option>apple</option><option>pear</option></select>
          <button id="pick">Pick</button></form>`,
    });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const form = document.getElementById("fruit") as HTMLFormElement;
      type Submit = SubmitEvent & { agentInvoked: boolean; respondWith(p: Promise<unknown>): void };
      const log: string[] = [];
      document.addEventListener("submit", (e) => log.push(`document:${(e as Submit).agentInvoked}`), true);
      form.addEventListener("submit", (e) => {
        const event = e as Submit;
        log.push(`form:${event.agentInvoked}`);
        event.preventDefault();
        try {
          event.respondWith(Promise.resolve(`picked ${new FormData(form).getAll("fruit").join("+")}`));
        } catch (error) {
          log.push(`respondWith:${(error as DOMException).name}`);
        }
      });
      const tool = (await mc.getTools()).find((t) => t.name === "pick_fruit")!;
      const first = await mc.executeTool(tool, { fruit: ["apple"] });
      const second = await mc.executeTool(tool, { fruit: ["apple", "pear"] });
      const calls = log.splice(0);
      form.requestSubmit(); // Not an agent's: no call is waiting for this form.
      return { first, second, calls, byPage: log };
    });
    expect(seen).toEqual({
      first: "picked apple",
      second: "picked apple+pear",
      calls: ["document:true", "form:true", "document:true", "form:true"],
      byPage: ["document:false", "form:false", "respondWith:InvalidStateError"],
    });
  });

  it("while a call runs its form carries data-tool-form-active and its submit button data-tool-submit-active, until the response, or until an abort (before toolcancel)", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { nextEvent, outcome } = window as unknown as Win;
      const marks = () =>
        Array.from(document.querySelectorAll("[data-tool-form-active], [data-tool-submit-active]")).map(
          (el) => `${el.id}:${el.hasAttribute("data-tool-form-active") ? "form" : "submit"}`,
        );
      const stamp = document.getElementById("stamp") as HTMLFormElement;
      let duringSubmit: string[] = [];
      stamp.addEventListener("submit", () => (duringSubmit = marks()), true);
      const tools = await mc.getTools();
      const before = marks();
      await mc.executeTool(
        tools.find((t) => t.name === "add-stamp")!,
        { name: "Inverted Jenny", condition: "mint" },
      );
      const afterResponse = marks();
      const controller = new AbortController();
      const activated = nextEvent(window, "toolactivated");
      const call = outcome(
        mc.executeTool(
          tools.find((t) => t.name === "search")!,
          { q: "ship" },
          { signal: controller.signal },
        ),
      );
      await activated;
      const waiting = marks();
      // The call rejects first, then the tool's own signal aborts and toolcancel fires (as WPT orders them).
      const cancelled = new Promise<string[]>((resolve) =>
        window.addEventListener("toolcancel", () => resolve(marks()), { once: true }),
      );
      controller.abort();
      const outcomeOfCall = await call;
      const duringCancel = await cancelled;
      return {
        before,
        duringSubmit,
        afterResponse,
        waiting,
        outcomeOfCall,
        duringCancel,
        afterAbort: marks(),
      };
    });
    expect(seen).toEqual({
      before: [],
      duringSubmit: ["stamp:form", ":submit"],
      afterResponse: [],
      waiting: ["search:form", "search-button:submit"],
      outcomeOfCall: { ok: false, name: "AbortError", message: "signal is aborted without reason" },
      duringCancel: [],
      afterAbort: [],
    });
  });

  it("a newer call to a form that waits for its submit fails the older call", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome } = window as unknown as Win;
      const tool = (await mc.getTools()).find((t) => t.name === "search")!;
      const older = outcome(mc.executeTool(tool, { q: "ship" }));
      const newer = mc.executeTool(tool, { q: "bird" });
      const olderOutcome = await older;
      (document.getElementById("search-button") as HTMLButtonElement).click();
      return { older: olderOutcome, newer: await newer };
    });
    expect(seen).toEqual({
      older: {
        ok: false,
        name: "UnknownError",
        message: 'A newer call to the tool "search" took over its form.',
      },
      newer: '3 stamps match "bird"',
    });
  });

  it("forms that appear become tools, changed forms register again, removed forms stop being tools", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      let changes = 0;
      mc.addEventListener("toolchange", () => changes++);
      const snapshot = async () =>
        (await mc.getTools()).map(
          (t) =>
            `${t.name}: ${t.description} ${Object.keys((JSON.parse(t.inputSchema!) as { properties: object }).properties).join(",")}`,
        );
      const form = document.createElement("form");
      form.setAttribute("toolname", "book-table");
      form.setAttribute("tooldescription", "Book a table");
      form.innerHTML = `<input name="guests" type="number">`;
      const registered = w.nextEvent(mc, "toolchange");
      document.body.append(form);
      await registered;
      const added = await snapshot();
      const reregistered = w.nextEvent(mc, "toolchange");
      form.setAttribute("tooldescription", "Book a table for dinner");
      form.insertAdjacentHTML("beforeend", `<input name="time" type="time">`);
      await reregistered;
      const changed = await snapshot();
      form.append(document.createElement("p")); // Not a control: no new registration.
      // A fixed wait on purpose: it proves that NO toolchange follows, so there is no event to wait for. A
      // task later, the MutationObserver callback and the registry's batched change (microtasks) have run.
      await w.nextTask();
      const changesBeforeRemoval = changes;
      const unregistered = w.nextEvent(mc, "toolchange");
      form.remove();
      await unregistered;
      return { added, changed, changesBeforeRemoval, removed: await snapshot(), changes };
    });
    expect(seen).toEqual({
      added: ["book-table: Book a table guests"],
      changed: ["book-table: Book a table for dinner guests,time"],
      changesBeforeRemoval: 2,
      removed: [],
      changes: 3,
    });
  });

  it("removing the form while its call waits for the response, or resetting it before it is submitted, fails the call", async () => {
    const page = await open({
      body: `<form id="f" toolname="crash_test" tooldescription="the crashy form!" toolautosubmit><input name="dummy"></form>
        <form id="g" toolname="reset_test" tooldescription="reset before submit"><input name="dummy"><button>Go</button></form>`,
    });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const { outcome, nextEvent } = window as unknown as Win;
      const f = document.getElementById("f") as HTMLFormElement;
      f.addEventListener("submit", (e) => {
        e.preventDefault();
        (e as SubmitEvent & { respondWith(p: Promise<unknown>): void }).respondWith(Promise.resolve());
        f.remove();
      });
      const tools = await mc.getTools();
      const removed = await outcome(
        mc.executeTool(
          tools.find((t) => t.name === "crash_test")!,
          {},
        ),
      );
      // The form is filled and waits for its submit once toolactivated reaches the window.
      const waiting = nextEvent(window, "toolactivated");
      const resetCall = outcome(
        mc.executeTool(
          tools.find((t) => t.name === "reset_test")!,
          { dummy: "x" },
        ),
      );
      await waiting;
      (document.getElementById("g") as HTMLFormElement).reset();
      return { removed, reset: await resetCall };
    });
    expect(seen).toEqual({
      removed: {
        ok: false,
        name: "UnknownError",
        message: 'The form of the tool "crash_test" was reset, changed or removed during the call.',
      },
      reset: {
        ok: false,
        name: "UnknownError",
        message: 'The form of the tool "reset_test" was reset, changed or removed during the call.',
      },
    });
  });

  it("aborting a call to a form fires toolcancel and rejects with the signal's reason", async () => {
    const page = await open({ body: forms });
    const seen = await page.evaluate(async () => {
      const { modelContext: mc } = document as unknown as Doc;
      const events: string[] = [];
      for (const type of ["toolactivated", "toolcancel"])
        window.addEventListener(type, (e) => events.push(`${type}:${(e as ToolEvent).toolName}`));
      const tool = (await mc.getTools()).find((t) => t.name === "search")!;
      const { nextEvent } = window as unknown as Win;
      const controller = new AbortController();
      const activated = nextEvent(window, "toolactivated");
      const call = (window as unknown as Win).outcome(
        mc.executeTool(tool, { q: "ship" }, { signal: controller.signal }),
      );
      await activated;
      const cancelled = nextEvent(window, "toolcancel");
      controller.abort();
      const outcome = await call;
      await cancelled;
      return { outcome, events, submits: (window as unknown as Win).submits };
    });
    expect(seen).toEqual({
      outcome: { ok: false, name: "AbortError", message: "signal is aborted without reason" },
      events: ["toolactivated:search", "toolcancel:search"],
      submits: [],
    });
  });

  it("a form with a name outside the rules or without a description is not a tool, and the console says why", async () => {
    const page = await newPage();
    const warnings: string[] = [];
    page.on(
      "console",
      (m) => m.type() === "warning" && m.text().includes("<form") && warnings.push(m.text()),
    );
    await page.route(`${SPEC}page.html`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><script src="/bridge.js"></script>
          <form toolname="Search flights" tooldescription="spaces are not allowed"></form>
          <form toolname="no-description"></form>`,
      }),
    );
    await page.goto(`${SPEC}page.html`);
    const tools = await page.evaluate(
      async () => (await (document as unknown as Doc).modelContext.getTools()).length,
    );
    expect(tools).toBe(0);
    expect(warnings).toEqual([
      'webmcp-hub: <form toolname="Search flights"> is not a tool: "Search flights" is not a tool name: use 1 to 128 letters, digits, "_", "-" or ".".',
      'webmcp-hub: <form toolname="no-description"> is not a tool: The tool "no-description" needs a description.',
    ]);
  });
});
