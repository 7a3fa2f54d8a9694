import { describe, expect, it } from "vitest";
import { checkAccount, serverFieldErrors } from "./credentials-check";

describe("checkAccount", () => {
  it("accepts a valid owner account, Vietnamese name included", () => {
    expect(
      checkAccount(
        { name: "Nguyễn Thị Hồng", email: "hong@example.vn", password: "mật khẩu dài", confirm: "mật khẩu dài" },
        "setup",
      ),
    ).toEqual({});
  });

  it("names each wrong field of a setup", () => {
    expect(
      checkAccount({ name: "x".repeat(101), email: "no-at-sign", password: "short", confirm: "other" }, "setup"),
    ).toEqual({
      name: "auth.errors.nameTooLong",
      email: "auth.errors.emailInvalid",
      password: "auth.errors.passwordTooShort",
      confirm: "auth.errors.passwordMismatch",
    });
  });

  it("asks for the missing fields of a login without judging the password's length", () => {
    expect(checkAccount({ email: " ", password: "" }, "login")).toEqual({
      email: "auth.errors.emailRequired",
      password: "auth.errors.passwordRequired",
    });
    expect(checkAccount({ email: "a@b.co", password: "short" }, "login")).toEqual({});
  });

  it("refuses a password longer than the server accepts", () => {
    expect(checkAccount({ email: "a@b.co", password: "p".repeat(257) }, "login").password).toBe(
      "auth.errors.passwordTooLong",
    );
  });
});

describe("serverFieldErrors", () => {
  it("maps the server's validation paths to fields and ignores the rest", () => {
    expect(serverFieldErrors([{ path: "body.email" }, { path: "body.password" }, { path: "body.other" }])).toEqual({
      email: "auth.errors.emailInvalid",
      password: "auth.errors.passwordTooShort",
    });
    expect(serverFieldErrors(null)).toEqual({});
  });
});
