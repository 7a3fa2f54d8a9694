import { DeltaSnapshot, JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { MARKER, PlainJsonSerde } from "./plain-json.serde.js";

const serde = new PlainJsonSerde();

async function roundTrip(value: unknown): Promise<unknown> {
  const [type, bytes] = await serde.dumpsTyped(value);
  expect(type).toBe("json");
  return serde.loadsTyped(type, bytes);
}

const LC_ENVELOPE = {
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", "HumanMessage"],
  kwargs: { content: "hi" },
};

describe("PlainJsonSerde", () => {
  it("keeps a LangChain constructor envelope a plain object", async () => {
    const back = (await roundTrip({ message: LC_ENVELOPE, list: [LC_ENVELOPE] })) as {
      message: object;
      list: object[];
    };
    expect(back).toStrictEqual({ message: LC_ENVELOPE, list: [LC_ENVELOPE] });
    expect(Object.getPrototypeOf(back.message)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(back.list[0])).toBe(Object.prototype);
    // The default serializer does revive it (langgraphjs #2346): the reason this one exists.
    const jsonPlus = new JsonPlusSerializer();
    const [type, bytes] = await jsonPlus.dumpsTyped(LC_ENVELOPE);
    expect(Object.getPrototypeOf(await jsonPlus.loadsTyped(type, bytes))).not.toBe(Object.prototype);
  });

  it("round-trips user objects that contain the marker key, at any depth", async () => {
    const tricky = {
      [MARKER]: "undefined",
      nested: { [MARKER]: "bytes", base64: "AAAA" },
      escaped: { [MARKER]: "object", value: { [MARKER]: "delta_snapshot", value: 1 } },
      list: [{ [MARKER]: "nope" }],
    };
    expect(await roundTrip(tricky)).toStrictEqual(tricky);
  });

  it("keeps a __proto__ key an own property and the prototype untouched", async () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const back = (await roundTrip(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
    expect(back.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("revives only its allow-list: undefined, bytes, DeltaSnapshot", async () => {
    expect(await roundTrip(undefined)).toBeUndefined();
    expect(await roundTrip([1, undefined, 3])).toStrictEqual([1, undefined, 3]);
    const withUndefined = (await roundTrip({ a: undefined })) as object;
    expect(Object.hasOwn(withUndefined, "a")).toBe(true);
    const bytes = await roundTrip(new Uint8Array([0, 1, 255]));
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...(bytes as Uint8Array)]).toEqual([0, 1, 255]);
    const snapshot = await roundTrip({ messages: new DeltaSnapshot([{ id: "m1" }]) });
    expect((snapshot as { messages: unknown }).messages).toBeInstanceOf(DeltaSnapshot);
    expect((snapshot as { messages: DeltaSnapshot<unknown> }).messages.value).toEqual([{ id: "m1" }]);
    // A user object shaped like a DeltaSnapshot stays plain.
    const shaped = { lg_name: "DeltaSnapshot", value: 1 };
    const shapedBack = await roundTrip(shaped);
    expect(shapedBack).toStrictEqual(shaped);
  });

  it("stores other values as JSON would", async () => {
    class Thing {
      a = 1;
      method() {}
    }
    expect(await roundTrip(new Thing())).toStrictEqual({ a: 1 });
    expect(await roundTrip(new Date("2024-01-02T03:04:05.000Z"))).toBe("2024-01-02T03:04:05.000Z");
    expect(await roundTrip({ n: Number.NaN, f: () => 1 })).toStrictEqual({ n: null });
    expect(await roundTrip("text")).toBe("text");
    expect(await roundTrip(null)).toBeNull();
  });

  it("refuses cycles, BigInts, unknown tags and other types", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(serde.dumpsTyped(cyclic)).rejects.toThrow(/circular/);
    await expect(serde.dumpsTyped(1n)).rejects.toThrow(/BigInt/);
    await expect(serde.loadsTyped("json", `{"${MARKER}": "eval"}`)).rejects.toThrow(/Unknown/);
    await expect(serde.loadsTyped("bytes", "x")).rejects.toThrow();
  });

  it("stores a shared (non-circular) object twice", async () => {
    const shared = { x: 1 };
    expect(await roundTrip({ a: shared, b: shared })).toStrictEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it("writes plain data as JSON.stringify does, and tags what plain JSON would lose, at any place in it", () => {
    const plain = { s: "x", n: [1, 2.5, -0, Number.POSITIVE_INFINITY], b: true, z: null, o: { deep: [{ k: "v" }] } };
    expect(serde.dumps(plain)).toBe(JSON.stringify(plain));
    const undefinedInside = { a: [1, { b: undefined }] };
    expect(serde.dumps(undefinedInside)).toBe(`{"a":[1,{"b":{"${MARKER}":"undefined"}}]}`);
    expect(serde.loads(serde.dumps(undefinedInside))).toStrictEqual(undefinedInside);
    expect(serde.dumps([() => 1])).toBe(`[{"${MARKER}":"undefined"}]`);
    expect(serde.dumps({ at: [new Date("2024-01-02T03:04:05.000Z")] })).toBe('{"at":["2024-01-02T03:04:05.000Z"]}');
    const bytes = serde.dumps({ deep: { bytes: new Uint8Array([1, 2]) } });
    expect(serde.loads(bytes)).toStrictEqual({ deep: { bytes: new Uint8Array([1, 2]) } });
  });

  it("stores values nested deeper than the plain check walks, and still refuses a cycle found there", () => {
    let nested: Record<string, unknown> = { leaf: "end" };
    for (let i = 0; i < 200; i++) nested = { next: nested };
    expect(serde.loads(serde.dumps(nested))).toStrictEqual(nested);
    const deepCycle: Record<string, unknown> = {};
    let cursor = deepCycle;
    for (let i = 0; i < 100; i++) cursor = cursor.next = {} as Record<string, unknown>;
    cursor.next = deepCycle;
    expect(() => serde.dumps(deepCycle)).toThrow(/circular/);
  });
});
