/**
 * A pause in a long job of a worker: resolves in a new macrotask, so that the messages that came
 * in meanwhile (a newer request that cancels this one, a graph call from the UI) run first. A
 * MessageChannel task, not a timeout: nested timeouts are clamped to 4 ms.
 */
export function pause(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
