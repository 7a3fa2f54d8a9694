import { useTranslation } from "react-i18next";
import { Badge } from "@/components/ui/badge";
import type { ImportJob } from "@/lib/api";
import { cn } from "@/lib/utils";

const TONE: Record<ImportJob["status"], string> = {
  running: "border-blue-600/40 text-blue-700 dark:text-blue-300",
  succeeded: "border-green-600/40 text-green-700 dark:text-green-300",
  failed: "border-destructive/50 text-destructive",
  interrupted: "border-amber-600/40 text-amber-800 dark:text-amber-300",
};

export function ImportStatusBadge({ status }: { status: ImportJob["status"] }) {
  const { t } = useTranslation();
  return (
    <Badge variant="outline" className={cn(TONE[status])} data-testid="import-status">
      {t(`importRepo.status.${status}`)}
    </Badge>
  );
}
