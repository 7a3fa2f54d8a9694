// A run's short id, as the runs page and the compare dialog show it. It is the id's last 8
// characters: a run id is a UUIDv7, whose first ones are its creation time and so the same for every
// run of the same minute; its last ones are random. The list's id filter matches an id's end too.
export function shortRunId(id: string): string {
  return id.slice(-8);
}
