// Layer rules from the architecture seed (backend layers table). The test in
// backend/test/layers.test.ts runs these rules and fails on any violation.
// Paths match "src/<layer>/" anywhere, so the same rules also judge the test fixtures.
const layer = (name) => `(^|/)src/${name}/`;
// npm dependencies are matched on their resolved path, Node built-ins on their name.
const WEB = "(^|/)node_modules/(fastify|@fastify|fastify-[^/]+)/";
const DB_DRIVERS = "(^|/)node_modules/(kysely|pg)/|^(node:)?sqlite$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-imports-only-core",
      comment: "core: standard library and its own libraries; nothing else in the app.",
      severity: "error",
      from: { path: layer("core") },
      to: { path: "(^|/)src/", pathNot: layer("core") },
    },
    {
      name: "core-no-web-or-db",
      severity: "error",
      from: { path: layer("core") },
      to: { path: `${WEB}|${DB_DRIVERS}` },
    },
    {
      name: "schemas-import-only-schemas",
      comment: "schemas: the validation library only; no models, repositories, services, api.",
      severity: "error",
      from: { path: layer("schemas") },
      to: { path: "(^|/)src/", pathNot: layer("schemas") },
    },
    {
      name: "engine-not-persistence-or-web",
      comment: "The engine never sees the database or HTTP: persistence reaches it through ports.",
      severity: "error",
      from: { path: layer("engine") },
      to: { path: `${layer("(models|repositories|services|api|worker|cli)")}` },
    },
    {
      name: "engine-no-web-or-db",
      severity: "error",
      from: { path: layer("engine") },
      to: { path: `${WEB}|${DB_DRIVERS}` },
    },
    {
      name: "models-not-upper-layers",
      severity: "error",
      from: { path: layer("models") },
      to: { path: layer("(repositories|services|api|engine|worker|cli)") },
    },
    { name: "models-no-web", severity: "error", from: { path: layer("models") }, to: { path: WEB } },
    {
      name: "repositories-not-upper-layers",
      severity: "error",
      from: { path: layer("repositories") },
      to: { path: layer("(services|api|engine|worker|cli)") },
    },
    { name: "repositories-no-web", severity: "error", from: { path: layer("repositories") }, to: { path: WEB } },
    {
      name: "services-not-api",
      severity: "error",
      from: { path: layer("services") },
      to: { path: layer("(api|worker|cli)") },
    },
    { name: "services-no-web", severity: "error", from: { path: layer("services") }, to: { path: WEB } },
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Only our own build output: node_modules packages also ship from dist/ (kysely does), and
    // excluding them would hide their imports from the rules.
    exclude: { path: "^(backend|frontend)/dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "backend/tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
