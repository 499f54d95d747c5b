import type { WebContents } from 'electron';
import { describe, expect, it } from 'vitest';
import {
  decidePermissionCheck,
  decidePermissionRequest,
  installPermissionHandlers,
  type PermissionCheckHandler,
  type PermissionRequestHandler,
} from './permissions.js';

const APP = 'http://127.0.0.1:41234';
const PAGE = `${APP}/`;

describe('decidePermissionRequest', () => {
  const mic = { permission: 'media', isMainFrame: true, requestingUrl: PAGE, mediaTypes: ['audio'] };

  it('grants audio-only media to the app main frame', () => {
    expect(decidePermissionRequest(APP, mic)).toBe(true);
    expect(decidePermissionRequest(APP, { ...mic, securityOrigin: `${APP}/` })).toBe(true);
  });
  it('denies camera, camera+mic, and requests without media types', () => {
    expect(decidePermissionRequest(APP, { ...mic, mediaTypes: ['video'] })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, mediaTypes: ['audio', 'video'] })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, mediaTypes: [] })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, mediaTypes: undefined })).toBe(false);
  });
  it('denies sub-frames and other origins', () => {
    expect(decidePermissionRequest(APP, { ...mic, isMainFrame: false })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, requestingUrl: 'http://127.0.0.1:1/' })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, requestingUrl: 'https://evil.test/' })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, requestingUrl: undefined })).toBe(false);
    expect(decidePermissionRequest(APP, { ...mic, securityOrigin: 'https://evil.test' })).toBe(false);
  });
  it('grants clipboard writing (the copy buttons) to the app main frame only; reading stays denied', () => {
    const write = { permission: 'clipboard-sanitized-write', isMainFrame: true, requestingUrl: PAGE };
    expect(decidePermissionRequest(APP, write)).toBe(true);
    expect(decidePermissionRequest(APP, { ...write, isMainFrame: false })).toBe(false);
    expect(decidePermissionRequest(APP, { ...write, requestingUrl: 'https://evil.test/' })).toBe(false);
    expect(decidePermissionRequest(APP, { ...write, permission: 'clipboard-read' })).toBe(false);
    const check = { permission: 'clipboard-sanitized-write', requestingOrigin: APP, isMainFrame: true };
    expect(decidePermissionCheck(APP, check)).toBe(true);
    expect(decidePermissionCheck(APP, { ...check, requestingOrigin: 'https://evil.test' })).toBe(false);
    expect(decidePermissionCheck(APP, { ...check, isMainFrame: false })).toBe(false);
  });
  it('denies every other permission, even from the app', () => {
    for (const permission of [
      'geolocation',
      'notifications',
      'display-capture',
      'clipboard-read',
      'midiSysex',
      'openExternal',
      'fileSystem',
      'hid',
      'unknown',
    ]) {
      expect(decidePermissionRequest(APP, { ...mic, permission }), permission).toBe(false);
    }
  });
});

describe('display capture (quick capture\'s Screenshot goes through main/screen-capture.ts, not getDisplayMedia)', () => {
  const CAPTURE_PAGE = `${APP}/capture`;
  it('is denied to every page: other origins, sub-frames, and the app\'s own pages too', () => {
    for (const requestingUrl of [CAPTURE_PAGE, PAGE, 'https://evil.test/', 'http://127.0.0.1:1/capture']) {
      for (const isMainFrame of [true, false]) {
        expect(decidePermissionRequest(APP, { permission: 'display-capture', isMainFrame, requestingUrl }), requestingUrl).toBe(false);
        expect(decidePermissionRequest(APP, { permission: 'media', isMainFrame, requestingUrl, mediaTypes: ['video'] }), requestingUrl).toBe(false);
        expect(decidePermissionCheck(APP, { permission: 'display-capture', isMainFrame, requestingOrigin: requestingUrl }), requestingUrl).toBe(false);
        expect(decidePermissionCheck(APP, { permission: 'media', isMainFrame, requestingOrigin: requestingUrl, mediaType: 'video' }), requestingUrl).toBe(false);
      }
    }
  });
});

describe('decidePermissionCheck', () => {
  const mic = { permission: 'media', isMainFrame: true, requestingOrigin: `${APP}/`, mediaType: 'audio' };

  it('reports the microphone granted for the app main frame (origin with or without slash)', () => {
    expect(decidePermissionCheck(APP, mic)).toBe(true);
    expect(decidePermissionCheck(APP, { ...mic, requestingOrigin: APP })).toBe(true);
  });
  it('reports camera, unknown media, sub-frames, other origins and other permissions denied', () => {
    expect(decidePermissionCheck(APP, { ...mic, mediaType: 'video' })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, mediaType: 'unknown' })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, mediaType: undefined })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, isMainFrame: false })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, requestingOrigin: 'https://evil.test/' })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, embeddingOrigin: 'https://evil.test' })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, securityOrigin: 'http://localhost:41234' })).toBe(false);
    expect(decidePermissionCheck(APP, { ...mic, permission: 'geolocation' })).toBe(false);
  });
});

describe('installPermissionHandlers', () => {
  // The handlers never look at the requesting contents; Electron always passes one.
  const contents = {} as WebContents;
  type Permission = Parameters<PermissionRequestHandler>[1];
  function fakeSession() {
    const installed: { request?: PermissionRequestHandler; check?: PermissionCheckHandler } = {};
    return {
      installed,
      session: {
        setPermissionRequestHandler: (h: PermissionRequestHandler) => (installed.request = h),
        setPermissionCheckHandler: (h: PermissionCheckHandler) => (installed.check = h),
      },
    };
  }
  function request(handler: PermissionRequestHandler, permission: Permission, mediaTypes?: Array<'audio' | 'video'>): Promise<boolean> {
    return new Promise((resolve) =>
      handler(contents, permission, resolve, { isMainFrame: true, requestingUrl: PAGE, mediaTypes }),
    );
  }

  it('answers requests and checks through the pure decisions', async () => {
    const { installed, session } = fakeSession();
    installPermissionHandlers(session, APP);
    expect(await request(installed.request!, 'media', ['audio'])).toBe(true);
    expect(await request(installed.request!, 'media', ['video'])).toBe(false);
    expect(await request(installed.request!, 'geolocation')).toBe(false);
    expect(installed.check!(contents, 'media', `${APP}/`, { isMainFrame: true, mediaType: 'audio' })).toBe(true);
    expect(installed.check!(contents, 'media', `${APP}/`, { isMainFrame: true, mediaType: 'video' })).toBe(false);
    expect(installed.check!(contents, 'geolocation', `${APP}/`, { isMainFrame: true })).toBe(false);
  });

  it('asks the system only for a grantable microphone request, and the system can refuse', async () => {
    const { installed, session } = fakeSession();
    let asked = 0;
    let systemAnswer = false;
    installPermissionHandlers(session, APP, {
      askSystemForMicrophone: async () => {
        asked++;
        return systemAnswer;
      },
    });
    expect(await request(installed.request!, 'media', ['video'])).toBe(false);
    expect(asked).toBe(0);
    expect(await request(installed.request!, 'media', ['audio'])).toBe(false);
    expect(asked).toBe(1);
    systemAnswer = true;
    expect(await request(installed.request!, 'media', ['audio'])).toBe(true);
    expect(asked).toBe(2);
  });

  it('denies when asking the system fails', async () => {
    const { installed, session } = fakeSession();
    installPermissionHandlers(session, APP, { askSystemForMicrophone: () => Promise.reject(new Error('tcc')) });
    expect(await request(installed.request!, 'media', ['audio'])).toBe(false);
  });
});
