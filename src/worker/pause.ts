/**
 * A pause in a long job of a worker: resolves in a new macrotask, so that the messages that came
 * in meanwhile (a newer request that cancels this one, a graph call from the UI) run first. A
 * MessageChannel task, not a timeout: nested timeouts are clamped to 4 ms.
 *
 * One channel serves every pause (a compile pauses after each of its ~22 steps; making a channel
 * each time cost a few ms of worker time per pause on a loaded machine). Where the host counts
 * ports as keeping the process alive (Node: the CLI and the tests), the port is held only while a
 * pause waits, so an idle channel never keeps a process from ending and a waiting pause always
 * resolves. Messages on one port arrive in the order sent, so pauses resolve in the order asked.
 */
type NodePort = MessagePort & { ref?: () => void; unref?: () => void };
let receiver: NodePort | null = null;
let sender: MessagePort | null = null;
const waiting: (() => void)[] = [];

export function pause(): Promise<void> {
  if (!receiver || !sender) {
    const channel = new MessageChannel();
    const port: NodePort = channel.port1;
    port.onmessage = () => {
      waiting.shift()?.();
      if (waiting.length === 0) port.unref?.();
    };
    receiver = port;
    sender = channel.port2;
  }
  if (waiting.length === 0) receiver.ref?.();
  const out = sender;
  return new Promise((resolve) => {
    waiting.push(resolve);
    out.postMessage(null);
  });
}
