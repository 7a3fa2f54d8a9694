// A workflow's schedules: cron and time zone with the next five fire times (in that zone) shown as
// you type, enable/disable, delete, and the runs each schedule started (on the runs page).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { api } from "@/lib/api";
import { errorMessage } from "@/lib/error-message";

interface Schedule {
  id: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  next_fire_at: string | null;
}

const FIELD = "h-8 rounded-md border bg-background px-2 text-sm";

/** The zones the browser knows, with UTC and the browser's own zone (ICU may list it by an older name). */
function zones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return [...new Set(["UTC", ...(own ? [own] : []), ...supported])];
}

function inZone(iso: string, timezone: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: timezone }).format(
    new Date(iso),
  );
}

/** The value after it has stayed the same for `ms` (the preview is asked once typing pauses). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function SchedulesSection({ workflowId }: { workflowId: string }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const key = ["schedules", workflowId];
  const schedules = useQuery({
    queryKey: key,
    queryFn: () => api.listSchedules<Schedule[]>(workflowId),
    enabled: workflowId !== "",
  });
  const [cron, setCron] = useState("0 9 * * 1-5");
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
  const allZones = useMemo(zones, []);
  const settled = useSettled({ cron, timezone }, 300);
  const preview = useQuery({
    queryKey: ["schedule-preview", settled.cron, settled.timezone],
    queryFn: () => api.previewSchedule(settled.cron, settled.timezone),
    enabled: settled.cron.trim() !== "",
    retry: false,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const create = useMutation({
    mutationFn: () => api.createSchedule(workflowId, { cron, timezone }),
    onSuccess: refresh,
  });
  const toggle = useMutation({
    mutationFn: (s: Schedule) =>
      api.updateSchedule(workflowId, s.id, { cron: s.cron, timezone: s.timezone, enabled: !s.enabled }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (s: Schedule) => api.deleteSchedule(workflowId, s.id), onSuccess: refresh });
  return (
    <section className="grid gap-2" data-testid="schedules">
      <h2 className="text-sm font-semibold">{t("triggers.schedules.title")}</h2>
      <ul className="grid gap-2">
        {(schedules.data ?? []).map((s) => (
          <li key={s.id} className="grid gap-1 rounded-md border p-2 text-xs" data-testid="schedule-row">
            <div className="flex items-center gap-2">
              <code className="font-mono text-sm">{s.cron}</code>
              <span className="text-muted-foreground">{s.timezone}</span>
              <label className="ml-auto flex items-center gap-1">
                <input
                  type="checkbox"
                  checked={s.enabled}
                  onChange={() => toggle.mutate(s)}
                  data-testid="schedule-enabled"
                />
                {t("triggers.schedules.enabled")}
              </label>
            </div>
            <div className="flex items-center gap-2 text-muted-foreground">
              {s.enabled && s.next_fire_at
                ? t("triggers.schedules.nextAt", { time: inZone(s.next_fire_at, s.timezone, i18n.language) })
                : t("triggers.schedules.off")}
              <Link
                className="ml-auto underline underline-offset-4"
                to={`/runs?workflow=${encodeURIComponent(workflowId)}&schedule=${encodeURIComponent(s.id)}`}
              >
                {t("triggers.schedules.runs")}
              </Link>
              <Button variant="ghost" size="sm" className="h-6 px-2 text-xs" onClick={() => remove.mutate(s)}>
                {t("triggers.schedules.delete")}
              </Button>
            </div>
          </li>
        ))}
      </ul>
      <div className="grid gap-2 rounded-md border p-2">
        <label className="grid gap-1 text-xs">
          {t("triggers.schedules.cron")}
          <input
            className={`${FIELD} font-mono`}
            value={cron}
            onChange={(e) => setCron(e.target.value)}
            data-testid="schedule-cron"
          />
        </label>
        <label className="grid gap-1 text-xs">
          {t("triggers.schedules.timezone")}
          <select
            className={FIELD}
            value={timezone}
            onChange={(e) => setTimezone(e.target.value)}
            data-testid="schedule-timezone"
          >
            {allZones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        </label>
        {preview.isError ? (
          <p className="text-xs text-destructive" data-testid="schedule-preview-error">
            {errorMessage(t, preview.error)}
          </p>
        ) : (
          preview.data && (
            <div className="text-xs">
              <p className="text-muted-foreground">
                {t("triggers.schedules.nextFive", { timezone: settled.timezone })}
              </p>
              <ol className="list-decimal pl-5" data-testid="schedule-preview">
                {preview.data.next.map((time) => (
                  <li key={time}>{inZone(time, settled.timezone, i18n.language)}</li>
                ))}
              </ol>
            </div>
          )
        )}
        {create.isError && <p className="text-xs text-destructive">{errorMessage(t, create.error)}</p>}
        <div>
          <Button
            size="sm"
            onClick={() => create.mutate()}
            disabled={create.isPending || preview.isError}
            data-testid="schedule-add"
          >
            {t("triggers.schedules.add")}
          </Button>
        </div>
      </div>
    </section>
  );
}
