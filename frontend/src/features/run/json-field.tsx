// A labelled JSON text box with its problem under it: the fork's state, and a one-node run's state
// and item. The caller parses the text and says what is wrong, if anything.
import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";

export function JsonField({
  id,
  label,
  value,
  onChange,
  problem,
  className,
}: {
  id: string;
  label: string;
  value: string;
  onChange(text: string): void;
  /** Shown under the box, which is then marked invalid; null when the text is fine. */
  problem: string | null;
  className?: string;
}) {
  return (
    <div className="grid gap-1">
      <Label htmlFor={id}>{label}</Label>
      <textarea
        id={id}
        className={cn("min-h-24 rounded-md border bg-background p-2 font-mono text-xs", className)}
        spellCheck={false}
        value={value}
        aria-invalid={problem ? true : undefined}
        onChange={(event) => onChange(event.target.value)}
        data-testid={id}
      />
      {problem && <p className="text-xs text-destructive">{problem}</p>}
    </div>
  );
}
