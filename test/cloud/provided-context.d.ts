// What test/cloud/global-setup.ts provides to the cloud tests.
declare module "vitest" {
  export interface ProvidedContext {
    cloudSite: { origin: string; other: string };
  }
}
export {};
