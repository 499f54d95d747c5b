import { describe, expect, it } from 'vitest';
import { chosenFolder, createPickFolderHandler, isTrustedSender, type OpenDialogResult } from './pick-folder.js';

const APP = 'http://127.0.0.1:41234';
const top = { url: `${APP}/`, parent: null };
const ABS = process.platform === 'win32' ? 'C:\\Users\\me\\project' : '/home/me/project';

describe('isTrustedSender', () => {
  it('accepts only the app origin top-level frame', () => {
    expect(isTrustedSender(top, APP)).toBe(true);
    expect(isTrustedSender({ url: `${APP}/?x`, parent: null }, APP)).toBe(true);
    expect(isTrustedSender({ url: `${APP}/`, parent: top }, APP)).toBe(false);
    expect(isTrustedSender({ url: 'https://evil.test/', parent: null }, APP)).toBe(false);
    expect(isTrustedSender({ url: 'http://127.0.0.1:1/', parent: null }, APP)).toBe(false);
    expect(isTrustedSender(null, APP)).toBe(false);
  });
});

describe('chosenFolder', () => {
  it('returns the first absolute path, or null', () => {
    expect(chosenFolder({ canceled: false, filePaths: [ABS] })).toBe(ABS);
    expect(chosenFolder({ canceled: true, filePaths: [ABS] })).toBeNull();
    expect(chosenFolder({ canceled: false, filePaths: [] })).toBeNull();
    expect(chosenFolder({ canceled: false, filePaths: ['relative/dir'] })).toBeNull();
  });
});

describe('createPickFolderHandler', () => {
  function setup(answers: OpenDialogResult[]) {
    let opened = 0;
    const handler = createPickFolderHandler({
      appOrigin: APP,
      showOpenDialog: async () => {
        opened++;
        return answers.shift() ?? { canceled: true, filePaths: [] };
      },
    });
    return { handler, opened: () => opened };
  }

  it('returns the chosen folder to a trusted sender', async () => {
    const { handler, opened } = setup([{ canceled: false, filePaths: [ABS] }]);
    await expect(handler({ senderFrame: top })).resolves.toBe(ABS);
    expect(opened()).toBe(1);
  });
  it('returns null when the user cancels', async () => {
    const { handler } = setup([{ canceled: true, filePaths: [] }]);
    await expect(handler({ senderFrame: top })).resolves.toBeNull();
  });
  it('refuses untrusted senders and arguments without opening a dialog', async () => {
    const { handler, opened } = setup([]);
    await expect(handler({ senderFrame: { url: 'https://evil.test/', parent: null } })).rejects.toThrow(
      'pickFolder: untrusted sender',
    );
    await expect(handler({ senderFrame: null })).rejects.toThrow('pickFolder: untrusted sender');
    await expect(handler({ senderFrame: top }, '/etc')).rejects.toThrow('pickFolder takes no arguments');
    expect(opened()).toBe(0);
  });
  it('shares one dialog between overlapping calls, and opens a new one afterwards', async () => {
    const { handler, opened } = setup([
      { canceled: false, filePaths: [ABS] },
      { canceled: true, filePaths: [] },
    ]);
    const [a, b] = await Promise.all([handler({ senderFrame: top }), handler({ senderFrame: top })]);
    expect([a, b]).toEqual([ABS, ABS]);
    expect(opened()).toBe(1);
    await expect(handler({ senderFrame: top })).resolves.toBeNull();
    expect(opened()).toBe(2);
  });
  it('recovers after the dialog itself fails', async () => {
    let fail = true;
    const handler = createPickFolderHandler({
      appOrigin: APP,
      showOpenDialog: async () => {
        if (fail) throw new Error('no display');
        return { canceled: false, filePaths: [ABS] };
      },
    });
    await expect(handler({ senderFrame: top })).rejects.toThrow('no display');
    fail = false;
    await expect(handler({ senderFrame: top })).resolves.toBe(ABS);
  });
});
