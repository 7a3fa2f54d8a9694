declare module "vitest" {
  export interface ProvidedContext {
    dbKind: "sqlite" | "postgres";
    pgAdminUrl: string;
  }
}

export {};
