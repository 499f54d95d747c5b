// The desktop window on a state folder another Satchel already serves (`npm run serve`, `--server-only`): the
// server refuses to start a second owner (server/process/state-lock.ts) and names the first one's address and
// token, and the window opens that server instead. What only a server in this process can do is refused with a
// reason: files opened with Satchel go through the owner's own process, which this one cannot reach.
import type { RunningServer } from '../server/index.js';
import type { RunningInstance } from '../server/process/state-lock.js';

/** Why a file opened with Satchel is not added while the window shows another process's server. */
export const OPENED_ELSEWHERE =
  'Satchel is running in another process on this state folder; drop the file into the window instead';

/** The running owner, as the window's glue uses a server it started itself; closing it closes nothing. */
export function attachedServer(stateDir: string, instance: RunningInstance): RunningServer {
  const url = new URL(instance.url);
  return {
    host: url.hostname,
    port: Number(url.port),
    origin: url.origin,
    token: instance.token,
    tokenUrl: `${url.origin}/?token=${instance.token}`,
    stateDir,
    desktop: {
      addToInbox: async (paths) => ({ added: [], skipped: paths.map((p) => ({ path: p, reason: OPENED_ELSEWHERE })) }),
      // Its Inbox watching is the owner's: the tray shows no switch for it.
      watching: { state: () => 'none', pause: () => {}, resume: () => {} },
    },
    close: async () => {},
  };
}
