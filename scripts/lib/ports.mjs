// Local TCP ports for the dev stack: is a port free, and pick a free one (e2e runs beside `npm start`).
import { createServer } from "node:net";

/** Resolves true when `host:port` can be bound right now (nothing else listens there). */
export function isPortFree(port, host = "127.0.0.1") {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (err) => {
      if (err.code === "EADDRINUSE" || err.code === "EACCES") resolve(false);
      else reject(err);
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port the OS reports free on `host` (released before returning, so another process can bind it). */
export function freePort(host = "127.0.0.1") {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port: 0, host }, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Parses a port from an environment variable, or throws a message saying what a valid value is. */
export function parsePort(value, name, fallback) {
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65534) {
    throw new Error(`${name}=${value} is not a usable port; give a whole number from 1 to 65534.`);
  }
  return port;
}
