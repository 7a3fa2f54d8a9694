// Size limits on what a run emits and keeps.

/** The value itself when its JSON fits in maxBytes; otherwise a marked, shortened preview. */
export function truncateForEvent(value: unknown, maxBytes: number): unknown {
  const text = JSON.stringify(value) ?? "null";
  if (Buffer.byteLength(text) <= maxBytes) return value;
  const previewBytes = Math.max(0, Math.floor(maxBytes / 2));
  return {
    truncated: true,
    bytes: Buffer.byteLength(text),
    preview: Buffer.from(text).subarray(0, previewBytes).toString("utf8"),
  };
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "null");
}
