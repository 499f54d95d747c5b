import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPackagedModelDir, packagedModelDir, STT_MODEL_ENV } from './model-dir.js';

const RESOURCES = path.join(path.sep, 'opt', 'Satchel', 'resources');
const EXPECTED = path.join(RESOURCES, 'models', 'moonshine-tiny');

describe('packagedModelDir', () => {
  it('points at resources/models/moonshine-tiny when packaged', () => {
    expect(packagedModelDir({}, { isPackaged: true, resourcesPath: RESOURCES })).toBe(EXPECTED);
  });
  it('leaves the environment alone in development or when the user chose a directory', () => {
    expect(packagedModelDir({}, { isPackaged: false, resourcesPath: RESOURCES })).toBeUndefined();
    expect(packagedModelDir({}, { isPackaged: true, resourcesPath: undefined })).toBeUndefined();
    expect(packagedModelDir({ [STT_MODEL_ENV]: '/mine' }, { isPackaged: true, resourcesPath: RESOURCES })).toBeUndefined();
  });
  it('treats a blank setting as unset', () => {
    expect(packagedModelDir({ [STT_MODEL_ENV]: '  ' }, { isPackaged: true, resourcesPath: RESOURCES })).toBe(EXPECTED);
  });
});

describe('applyPackagedModelDir', () => {
  it('sets SATCHEL_STT_MODEL_DIR only when it should', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(applyPackagedModelDir(env, { isPackaged: true, resourcesPath: RESOURCES })).toBe(EXPECTED);
    expect(env).toEqual({ SATCHEL_STT_MODEL_DIR: EXPECTED });
    const mine: NodeJS.ProcessEnv = { SATCHEL_STT_MODEL_DIR: '/mine' };
    applyPackagedModelDir(mine, { isPackaged: true, resourcesPath: RESOURCES });
    expect(mine).toEqual({ SATCHEL_STT_MODEL_DIR: '/mine' });
    const dev: NodeJS.ProcessEnv = {};
    applyPackagedModelDir(dev, { isPackaged: false, resourcesPath: RESOURCES });
    expect(dev).toEqual({});
  });
});
