// What the server knows about one connection across its requests: how many responses are still owed on it
// (pipelined requests queue theirs behind the one being written), whether one of them said
// `Connection: close`, and what to do once the last of them has gone out. The parser can refuse bytes
// while earlier answers are still owed; the refusal must wait its turn instead of jumping the queue.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface ConnectionState {
  /** Responses started on this connection that have not finished (or been torn down) yet. */
  owed: number;
  /** A response on this connection said `Connection: close`: nothing may follow it. */
  closing: boolean;
  /** Run once nothing is owed any more (a deferred refusal, or the close). */
  whenIdle?: () => void;
}

const states = new WeakMap<Socket, ConnectionState>();

function stateOf(socket: Socket): ConnectionState {
  let state = states.get(socket);
  if (!state) {
    state = { owed: 0, closing: false };
    states.set(socket, state);
  }
  return state;
}

/** A request arrived on `socket`: its response is owed until it finishes or is torn down. */
export function owe(socket: Socket | null | undefined, res: ServerResponse): void {
  if (!socket) return;
  const state = stateOf(socket);
  state.owed++;
  let settled = false;
  const settle = (): void => {
    if (settled) return;
    settled = true;
    state.owed--;
    if (state.owed === 0 && state.whenIdle) {
      const run = state.whenIdle;
      state.whenIdle = undefined;
      run();
    }
  };
  res.once('finish', settle);
  res.once('close', settle);
}

/** Responses still owed on `socket`. */
export function owedOn(socket: Socket | null | undefined): number {
  return socket ? (states.get(socket)?.owed ?? 0) : 0;
}

/** Run `action` once every owed response on `socket` has gone out (at once when none is owed). */
export function whenIdle(socket: Socket, action: () => void): void {
  const state = stateOf(socket);
  if (state.owed === 0) action();
  else state.whenIdle = action;
}

export function markClosing(socket: Socket | null | undefined): void {
  if (socket) stateOf(socket).closing = true;
}

/** Some response on this connection said `Connection: close`: bytes after the request it answered are dropped. */
export function isClosing(socket: Socket | null | undefined): boolean {
  return !!socket && (states.get(socket)?.closing ?? false);
}
