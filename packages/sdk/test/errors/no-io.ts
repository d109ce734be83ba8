// What the validation tests watch to show that a refusal happened before any I/O: every TCP/IPC socket a
// client opens goes through net.Socket.prototype.connect (node-postgres, undici and http all call it; a host
// name is looked up inside it), so a spy on it that saw no call means no connection and no DNS lookup.
import net from 'node:net';
import { vi } from 'vitest';

/** Starts counting socket connects; `targets` lists what each was asked to reach. */
export function watchSockets(): { readonly targets: string[]; restore(): void } {
  const targets: string[] = [];
  const original = net.Socket.prototype.connect;
  const spy = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
    this: net.Socket,
    ...args: unknown[]
  ) {
    const first = args[0] as { host?: string; port?: number; path?: string } | number | string;
    targets.push(
      typeof first === 'object' && first !== null
        ? (first.path ?? `${first.host ?? 'localhost'}:${first.port}`)
        : `${String(args[1] ?? 'localhost')}:${String(first)}`,
    );
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  });
  return { targets, restore: () => spy.mockRestore() };
}

/** A local TCP port nothing listens on (a connection to it is refused at once). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
