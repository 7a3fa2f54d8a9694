// Types for log-buffer.mjs, which stays plain JavaScript because the sandbox child loads it
// without compilation.

export interface LogLimits {
  readonly maxLines: number;
  readonly maxBytes: number;
}

export declare const LOG_LIMITS: LogLimits;

export declare class LogBuffer {
  constructor(limits?: LogLimits);
  add(line: string): string | null;
  readonly full: boolean;
  readonly lines: string[];
}
