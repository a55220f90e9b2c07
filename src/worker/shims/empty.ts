// An empty module for wrangler.toml's [alias]: stands in for `import "reflect-metadata"`, a side-effect import
// of @simplewebauthn/server's certificate-path helpers, which the Worker never runs (see webauthn-asn1.ts).
export {};
