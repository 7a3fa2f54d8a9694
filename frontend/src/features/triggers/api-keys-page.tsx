// API keys for hooks and other clients: created with a name and shown once, listed by their first
// characters with when they were last used, revoked with a confirmation. Each key's callback
// secret (which signs the callbacks of the runs it starts) is shown with it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { PageTitle } from "@/components/page-title";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";
import { fullDate } from "@/lib/relative-time";

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  callback_secret: string | null;
}

export function ApiKeysPage() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ["api-keys"], queryFn: () => api.listApiKeys<ApiKey>() });
  const [name, setName] = useState("");
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["api-keys"] });
  const create = useMutation({
    mutationFn: () => api.createApiKey<ApiKey & { key: string }>(name.trim()),
    onSuccess: (key) => {
      setCreated(key);
      setName("");
      void refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (key: ApiKey) => api.revokeApiKey(key.id), onSuccess: refresh });
  return (
    <div className="mx-auto grid w-full max-w-5xl gap-4 px-4 py-6" data-testid="api-keys-page">
      <PageTitle title={t("apiKeys.title")} />
      <h1 className="text-xl font-semibold">{t("apiKeys.title")}</h1>
      <p className="text-sm text-muted-foreground">{t("apiKeys.description")}</p>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) create.mutate();
        }}
      >
        <label className="grid gap-1 text-xs">
          {t("apiKeys.name")}
          <input
            className="h-8 w-64 rounded-md border bg-background px-2 text-sm"
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="api-key-name"
          />
        </label>
        <Button type="submit" size="sm" disabled={!name.trim() || create.isPending} data-testid="api-key-create">
          {t("apiKeys.create")}
        </Button>
      </form>
      {create.isError && <p className="text-sm text-destructive">{errorMessage(t, create.error)}</p>}
      {created && (
        <div
          className="grid gap-2 rounded-md border border-amber-500 bg-amber-50 p-3 text-sm dark:bg-amber-950/40"
          role="alert"
          data-testid="api-key-created"
        >
          <p className="font-medium">{t("apiKeys.shownOnce")}</p>
          <code className="break-all rounded bg-background p-2 font-mono text-xs" data-testid="api-key-value">
            {created.key}
          </code>
          <div className="flex gap-2">
            <Button variant="outline" size="sm" onClick={() => navigator.clipboard.writeText(created.key)}>
              {t("apiKeys.copy")}
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setCreated(null)} data-testid="api-key-done">
              {t("apiKeys.done")}
            </Button>
          </div>
        </div>
      )}
      <Table aria-label={t("apiKeys.title")} data-testid="api-keys-table">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>{t("apiKeys.columns.name")}</TableHead>
            <TableHead>{t("apiKeys.columns.key")}</TableHead>
            <TableHead>{t("apiKeys.columns.lastUsed")}</TableHead>
            <TableHead>{t("apiKeys.columns.secret")}</TableHead>
            <TableHead>
              <span className="sr-only">{t("apiKeys.columns.actions")}</span>
            </TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {(keys.data ?? []).map((key) => (
            <TableRow key={key.id} data-testid="api-key-row" data-revoked={key.revoked_at ? "true" : "false"}>
              <TableCell>{key.name}</TableCell>
              <TableCell className="font-mono text-xs" data-testid="api-key-prefix">
                {key.prefix}…
              </TableCell>
              <TableCell className="text-xs">
                {key.last_used_at ? fullDate(key.last_used_at, i18n.language) : t("apiKeys.never")}
              </TableCell>
              <TableCell className="max-w-56 truncate font-mono text-xs" title={key.callback_secret ?? ""}>
                {key.callback_secret ?? "—"}
              </TableCell>
              <TableCell className="text-right">
                {key.revoked_at ? (
                  <span className="text-xs text-muted-foreground">{t("apiKeys.revoked")}</span>
                ) : (
                  <Button variant="ghost" size="sm" onClick={() => setRevoking(key)} data-testid="api-key-revoke">
                    {t("apiKeys.revoke")}
                  </Button>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={t("apiKeys.revokeTitle", { name: revoking?.name ?? "" })}
        description={t("apiKeys.revokeDescription")}
        confirmLabel={t("apiKeys.revoke")}
        variant="destructive"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => {
          if (revoking) revoke.mutate(revoking, { onSuccess: () => setRevoking(null) });
        }}
      />
    </div>
  );
}
