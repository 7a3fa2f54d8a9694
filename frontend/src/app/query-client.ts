import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "@/lib/api";

/** Server data cache. A 4xx answer is final (retrying cannot change it); network and 5xx get two more tries. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      retry: (failures, error) => {
        if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
        return failures < 2;
      },
    },
    mutations: { retry: false },
  },
});
