// The attachment layout: one folder per session, named so that the folders already on disk are found again.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeName } from '../core/names.js';
import {
  ATTACHMENT_DIR_ENV,
  attachmentRoot,
  INVALID_SESSION_FOLDER,
  INVALID_UPLOAD_DESTINATION,
  isExtractionFolder,
  openSessionFolder,
  sessionFolder,
  sidecarOf,
  storedName,
} from './layout.js';

let state: string;
const ID = '0123456789ab';

beforeEach(async () => {
  state = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-layout-')));
});
afterEach(async () => {
  delete process.env[ATTACHMENT_DIR_ENV];
  await fs.rm(state, { recursive: true, force: true });
});

describe('sessionFolder', () => {
  it('is <state>/attachments/<id>', () => {
    expect(sessionFolder(state, ID)).toBe(path.join(state, 'attachments', ID));
  });

  it('is below SATCHEL_WEBUI_ATTACHMENT_DIR when that is set', () => {
    const elsewhere = path.join(state, 'elsewhere');
    expect(attachmentRoot(state, { [ATTACHMENT_DIR_ENV]: elsewhere })).toBe(elsewhere);
    process.env[ATTACHMENT_DIR_ENV] = elsewhere;
    expect(sessionFolder(state, ID)).toBe(path.join(elsewhere, ID));
  });

  it('names the folders the upload handlers made before (the id sanitized to 120 characters) for every real id', () => {
    for (let i = 0; i < 1000; i++) {
      const id = randomBytes(6).toString('hex');
      expect(path.basename(sessionFolder(state, id))).toBe(sanitizeName(id, 120));
    }
  });

  it('refuses a string that is no session id instead of mapping it onto a folder', () => {
    for (const bad of ['', '..', '../0123456789ab', '0123456789AB', '0123456789ab/x', 'session', '0123456789abc']) {
      expect(() => sessionFolder(state, bad)).toThrow(INVALID_SESSION_FOLDER);
    }
  });
});

describe('openSessionFolder', () => {
  it('creates the folder and holds it open', async () => {
    const dir = await openSessionFolder(state, ID);
    try {
      expect(dir.path).toBe(path.join(state, 'attachments', ID));
      expect((await fs.stat(dir.path)).isDirectory()).toBe(true);
    } finally {
      await dir.close();
    }
  });

  it('refuses a session folder that is a symlink out of the attachment root', async () => {
    const outside = path.join(state, 'outside');
    await fs.mkdir(outside);
    await fs.mkdir(path.join(state, 'attachments'));
    await fs.symlink(outside, path.join(state, 'attachments', ID));
    await expect(openSessionFolder(state, ID)).rejects.toThrow(INVALID_UPLOAD_DESTINATION);
    expect(await fs.readdir(outside)).toEqual([]);
  });
});

describe('isExtractionFolder', () => {
  it('is true only for a normalized path directly inside the session folder', () => {
    const folder = sessionFolder(state, ID);
    expect(isExtractionFolder(state, ID, path.join(folder, 'data'))).toBe(true);
    expect(isExtractionFolder(state, ID, folder)).toBe(false);
    expect(isExtractionFolder(state, ID, path.join(folder, 'data', 'inner'))).toBe(false);
    expect(isExtractionFolder(state, ID, `${folder}/x/../data`)).toBe(false);
    expect(isExtractionFolder(state, ID, 'data')).toBe(false);
    expect(isExtractionFolder(state, 'ba9876543210', path.join(folder, 'data'))).toBe(false);
    expect(isExtractionFolder(state, '..', path.join(state, 'data'))).toBe(false);
  });
});

describe('names', () => {
  it('stores an upload under its sanitized last component', () => {
    expect(storedName('../../etc/pass wd.txt')).toBe('pass_wd.txt');
    expect(() => storedName('..')).toThrow('Invalid filename');
  });

  it('puts an Office sidecar beside its document', () => {
    expect(sidecarOf('/s/report.docx')).toBe('/s/report.docx.md');
  });
});
