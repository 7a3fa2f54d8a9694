import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { queryClient } from "@/app/query-client";
import { ApiError, type Session } from "@/lib/api";
import { setSession } from "@/lib/session";
import { meQuery } from "./auth-queries";
import { checkAccount, type FieldErrors, serverFieldErrors } from "./credentials-check";

export interface AccountValues {
  name: string;
  email: string;
  password: string;
  confirm: string;
}

/** The state and submit of the setup and login forms: checks, sends, stores the session, moves on. */
export function useAccountForm(
  mode: "setup" | "login",
  send: (values: AccountValues) => Promise<Session>,
  destination: () => string,
) {
  const navigate = useNavigate();
  const [values, setValues] = useState<AccountValues>({ name: "", email: "", password: "", confirm: "" });
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const mutation = useMutation({
    mutationFn: send,
    onSuccess: async (session) => {
      queryClient.clear();
      setSession(session);
      queryClient.setQueryData(meQuery.queryKey, session.user);
      await navigate(destination(), { replace: true });
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === "VALIDATION_FAILED")
        setFieldErrors(serverFieldErrors(error.details));
    },
  });

  const update = (field: keyof AccountValues) => (event: { target: { value: string } }) => {
    setValues((current) => ({ ...current, [field]: event.target.value }));
    setFieldErrors((current) => ({ ...current, [field]: undefined }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const errors = checkAccount(values, mode);
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) {
      // Focus the first field that needs attention, so keyboard and screen-reader users land on it.
      const first = (["name", "email", "password", "confirm"] as const).find((field) => errors[field]);
      if (first) document.getElementById(`${mode}-${first}`)?.focus();
      return;
    }
    mutation.mutate({ ...values, email: values.email.trim(), name: values.name.trim() });
  };

  return { values, update, submit, fieldErrors, mutation };
}
