import { queryOptions } from "@tanstack/react-query";
import { api } from "@/lib/api";

export const meQuery = queryOptions({ queryKey: ["auth", "me"], queryFn: api.me, staleTime: 5 * 60_000 });

export const healthQuery = queryOptions({ queryKey: ["health"], queryFn: api.health, staleTime: 60_000 });
