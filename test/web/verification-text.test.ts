// The verification line the approval dialogs show (bridge and extension), and how they read the hub's field
// from a call frame they do not parse with zod.
import { describe, expect, it } from "vitest";
import { readVerification, verificationText } from "../../src/protocol/verification-text.js";

describe("verification text", () => {
  it("says verified, what changed, or who did not publish it", () => {
    expect(
      verificationText({ status: "verified", site: "shop.example", version: 3 }, "https://shop.example"),
    ).toBe("Verified against shop.example's published manifest.");
    expect(
      verificationText(
        { status: "changed", site: "shop.example", differs: ["description", "inputSchema"] },
        null,
      ),
    ).toBe("Changed since published by shop.example: description, inputSchema.");
    expect(verificationText({ status: "unpublished" }, "https://shop.example")).toBe(
      "Not published by https://shop.example.",
    );
  });

  it("keeps only a well-formed verification from a frame", () => {
    expect(
      readVerification({ status: "changed", site: "a.example", version: 2, differs: ["title", "evil"] }),
    ).toEqual({
      status: "changed",
      site: "a.example",
      version: 2,
      differs: ["title"],
    });
    expect(readVerification({ status: "trusted" })).toBeUndefined();
    expect(readVerification("verified")).toBeUndefined();
    expect(readVerification(undefined)).toBeUndefined();
    expect(readVerification({ status: "verified", site: "x".repeat(301) })).toEqual({ status: "verified" });
  });
});
