// Stands in for `server-only` under vitest: lib/ modules are server code, and so are tests.
export {};
