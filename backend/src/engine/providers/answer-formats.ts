// The `format` values a structured-answer schema may use, each checked by code that runs in time
// linear in the string (no backtracking regular expressions): a model's answer can be long, and
// ReDoS-prone format regexes would let one answer stall the server. These are the formats the
// OpenAI and Anthropic structured outputs document, plus `uri`.
import { isIPv4, isIPv6 } from "node:net";

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 full-date: 2024-02-29. */
function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const days = month === 2 && isLeapYear(year) ? 29 : (DAYS[month - 1] as number);
  return day <= days;
}

/** RFC 3339 full-time: 23:59:60.5+07:00 (an offset is required). */
function isTime(text: string): boolean {
  const match = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/.exec(text);
  if (!match) return false;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (match[4] !== undefined && (Number(match[4]) > 23 || Number(match[5]) > 59)) return false;
  return true;
}

/** RFC 3339 date-time: 2024-02-29T12:00:00Z. */
function isDateTime(text: string): boolean {
  const separator = text[10];
  return (
    (separator === "T" || separator === "t" || separator === " ") && isDate(text.slice(0, 10)) && isTime(text.slice(11))
  );
}

/** RFC 3339 (ISO 8601) duration: P1Y2M3DT4H5M6S, P3W. */
function isDuration(text: string): boolean {
  if (text === "P" || text === "PT" || text.endsWith("T")) return false;
  return /^P(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?$/.test(text);
}

/** RFC 1123 host name: labels of letters, digits and hyphens, 63 characters each at most. */
function isHostname(text: string): boolean {
  const name = text.endsWith(".") ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > 253) return false;
  return name
    .split(".")
    .every((label) => label.length <= 63 && /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label));
}

/** A simplified address check: something@host.name, no spaces. */
function isEmail(text: string): boolean {
  const at = text.lastIndexOf("@");
  if (at < 1 || at > 64) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (/[\s@]/.test(local)) return false;
  return domain.includes(".") && isHostname(domain);
}

function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}

/** An absolute URI (scheme first), as the WHATWG URL parser reads it. */
function isUri(text: string): boolean {
  return !/\s/.test(text) && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && URL.canParse(text);
}

export const ANSWER_FORMATS: Record<string, (text: string) => boolean> = {
  date: isDate,
  time: isTime,
  "date-time": isDateTime,
  duration: isDuration,
  email: isEmail,
  hostname: isHostname,
  ipv4: (text) => text.length <= 15 && isIPv4(text),
  ipv6: (text) => text.length <= 45 && isIPv6(text),
  uuid: isUuid,
  uri: isUri,
};
