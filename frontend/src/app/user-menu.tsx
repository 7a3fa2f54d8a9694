import { useQuery } from "@tanstack/react-query";
import { CircleUserIcon, LogOutIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { meQuery } from "@/features/auth/auth-queries";
import { clearSession, getSession } from "@/lib/session";
import { queryClient } from "./query-client";

export function UserMenu() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data } = useQuery(meQuery);
  const user = data ?? getSession()?.user ?? null;
  const signOut = async () => {
    clearSession();
    await navigate("/login", { replace: true });
    queryClient.clear();
  };
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="sm" aria-label={t("shell.account", { name: user?.name || user?.email || "" })}>
          <CircleUserIcon aria-hidden />
          <span className="hidden max-w-48 truncate md:inline">{user?.name || user?.email}</span>
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-64">
        <DropdownMenuLabel className="flex flex-col gap-0.5">
          {user?.name && <span className="truncate">{user.name}</span>}
          <span className="truncate font-normal text-muted-foreground">{user?.email}</span>
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => void signOut()}>
          <LogOutIcon aria-hidden />
          {t("shell.signOut")}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
