// A full garbage collection in every thread of a studio process, through the inspector protocol:
// the main thread itself and each worker thread (the run thread) through the NodeWorker domain.
// The benchmarks read memory after it; without the worker threads, the heap that runs allocate on
// the run thread would be counted uncollected.
//
// `cdp` is the transport: { send(method, params) → Promise<result>, on(event, listener) }, over
// the inspector's WebSocket (bench/throughput.mjs) or an in-process inspector.Session
// (bench/memory-probe.mjs).

/** Collects in every thread; returns the heap in use afterwards, in bytes, per thread (main first). */
export async function collectEveryThread(cdp) {
  const workers = [];
  const pending = new Map();
  let nextId = 1;
  cdp.on("NodeWorker.attachedToWorker", (params) => workers.push(params.sessionId));
  cdp.on("NodeWorker.receivedMessageFromWorker", (params) => {
    const message = JSON.parse(params.message);
    const waiter = pending.get(`${params.sessionId}:${message.id}`);
    if (!waiter) return;
    pending.delete(`${params.sessionId}:${message.id}`);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  // Attaches to the threads alive now (one attachedToWorker event each, before the reply).
  await cdp.send("NodeWorker.enable", { waitForDebuggerOnStart: false });
  const inWorker = (sessionId, method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(`${sessionId}:${id}`, { resolve, reject });
      cdp
        .send("NodeWorker.sendMessageToWorker", { sessionId, message: JSON.stringify({ id, method, params }) })
        .catch(reject);
    });
  try {
    await cdp.send("HeapProfiler.collectGarbage");
    const heaps = [(await cdp.send("Runtime.getHeapUsage")).usedSize];
    for (const sessionId of workers) {
      await inWorker(sessionId, "HeapProfiler.collectGarbage");
      heaps.push((await inWorker(sessionId, "Runtime.getHeapUsage")).usedSize);
    }
    return heaps;
  } finally {
    await cdp.send("NodeWorker.disable");
  }
}
