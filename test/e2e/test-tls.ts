// A throwaway CA and a certificate for localhost and 127.0.0.1 it signed (openssl, two days), for e2e servers
// that must speak https to the hub: the hub under `wrangler dev` trusts the CA through NODE_EXTRA_CA_CERTS.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function createTestTls(dir: string): { caFile: string; cert: string; key: string } {
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-keyout",
    f("ca.key"),
    "-out",
    f("ca.pem"),
    "-subj",
    "/CN=webmcp-hub e2e test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    f("server.key"),
    "-out",
    f("server.csr"),
    "-subj",
    "/CN=localhost",
  );
  writeFileSync(
    f("server.ext"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "x509",
    "-req",
    "-in",
    f("server.csr"),
    "-CA",
    f("ca.pem"),
    "-CAkey",
    f("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    f("server.pem"),
    "-extfile",
    f("server.ext"),
  );
  return {
    caFile: f("ca.pem"),
    cert: readFileSync(f("server.pem"), "utf8"),
    key: readFileSync(f("server.key"), "utf8"),
  };
}
