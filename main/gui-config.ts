// The window's server settings. The desktop window always talks to 127.0.0.1; its state lives in Electron's
// user-data folder unless the user chose another; and its port is remembered unless the user fixed one.
import type { CliFlags, ServerConfig } from '../server/core/config.js';
import { isSettingSet } from '../server/settings/table.js';
import { LOOPBACK_HOST } from './access-cookie.js';

export interface GuiServerPlan {
  config: ServerConfig;
  /** True: try the remembered port, fall back to any free one, remember the result. */
  rememberPort: boolean;
}

export function guiServerPlan(
  loaded: ServerConfig,
  flags: CliFlags,
  env: NodeJS.ProcessEnv,
  userDataDir: string,
): GuiServerPlan {
  const stateChosen = flags.stateDir !== undefined || isSettingSet('stateDir', env);
  const portChosen = flags.port !== undefined || isSettingSet('port', env);
  return {
    config: {
      ...loaded,
      // The page is loaded from http://127.0.0.1:PORT and the access cookie is set for that host only.
      host: LOOPBACK_HOST,
      stateDir: stateChosen ? loaded.stateDir : userDataDir,
    },
    rememberPort: !portChosen || loaded.port === 0,
  };
}
