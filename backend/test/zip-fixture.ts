// Writes zip archives for tests, including the hostile ones no zip tool makes on purpose: names
// that climb out, symlink entries, and headers that lie about the unpacked size.
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipEntrySpec {
  name: string;
  data?: Buffer | string;
  /** Unix mode in the external attributes, e.g. 0o120777 for a symlink. */
  mode?: number;
  deflate?: boolean;
  /** An uncompressed size to claim instead of the true one. */
  claimedSize?: number;
}

export function makeZip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data ?? "", "utf8");
    const body = entry.deflate ? deflateRawSync(data) : data;
    const method = entry.deflate ? 8 : 0;
    const size = entry.claimedSize ?? data.length;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    const mode = entry.mode ?? (entry.name.endsWith("/") ? 0o040755 : 0o100644);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A multipart/form-data body with one file field, for app.inject. */
export function multipartBody(fileName: string, content: Buffer, field = "file") {
  const boundary = `----superstep${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: application/zip\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** The files of a small LangGraph project shaped like langchain-ai/new-langgraph-project. */
export const NEW_PROJECT_FILES: Record<string, string> = {
  "langgraph.json": JSON.stringify({
    dependencies: ["."],
    graphs: { agent: "./src/agent/graph.py:graph" },
    env: ".env",
  }),
  "pyproject.toml": '[project]\nname = "agent"\nversion = "0.0.1"\ndependencies = ["langgraph>=0.2"]\n',
  ".env.example": "# keys\nLANGSMITH_API_KEY=\nexport OPENAI_API_KEY=sk-...\n",
  "src/agent/__init__.py": "",
  "src/agent/graph.py":
    "from langgraph.graph import StateGraph\n\nbuilder = StateGraph(dict)\nbuilder.add_node('call_model', lambda s: s)\nbuilder.add_edge('__start__', 'call_model')\ngraph = builder.compile(name='New Graph')\n",
};
