import type { WindowOpenHandlerResponse as WindowOpenResponse } from 'electron';
import { describe, expect, it } from 'vitest';
import { attachGuards, type GuardedContents } from './guards.js';

const APP = 'http://127.0.0.1:41234';

type Listener = (event: { preventDefault(): void }, url?: string) => void;

function fakeContents() {
  const listeners = new Map<string, Listener>();
  let openHandler: ((details: { url: string }) => WindowOpenResponse) | undefined;
  const contents = {
    on(event: string, listener: Listener) {
      listeners.set(event, listener);
      return contents;
    },
    setWindowOpenHandler(handler: (details: { url: string }) => WindowOpenResponse) {
      openHandler = handler;
    },
  };
  /** Emit an event; returns whether a listener called preventDefault. */
  const emit = (event: string, url?: string): boolean => {
    let prevented = false;
    listeners.get(event)!({ preventDefault: () => (prevented = true) }, url);
    return prevented;
  };
  return { contents: contents as unknown as GuardedContents, emit, open: (url: string) => openHandler!({ url }) };
}

function setup(openExternal: (url: string) => Promise<void> | void = () => {}) {
  const opened: string[] = [];
  const errors: unknown[] = [];
  const fake = fakeContents();
  attachGuards(fake.contents, {
    appOrigin: APP,
    openExternal: (url) => {
      opened.push(url);
      return openExternal(url);
    },
    popupOptions: () => ({ title: 'hardened' }),
    onError: (err) => errors.push(err),
  });
  return { ...fake, opened, errors };
}

describe('attachGuards: navigation', () => {
  it('lets in-app navigation through', () => {
    const { emit, opened } = setup();
    expect(emit('will-navigate', `${APP}/settings`)).toBe(false);
    expect(opened).toEqual([]);
  });
  it('keeps the window in place and opens http(s) links in the system browser', () => {
    const { emit, opened } = setup();
    expect(emit('will-navigate', 'https://example.com/docs')).toBe(true);
    expect(opened).toEqual(['https://example.com/docs']);
  });
  it('denies other schemes without opening anything', () => {
    const { emit, opened } = setup();
    expect(emit('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(emit('will-navigate', 'smb://host/share')).toBe(true);
    expect(opened).toEqual([]);
  });
  it('blocks redirects away from the app and never opens them externally', () => {
    const { emit, opened } = setup();
    expect(emit('will-redirect', 'https://example.com/')).toBe(true);
    expect(emit('will-redirect', `${APP}/`)).toBe(false);
    expect(opened).toEqual([]);
  });
  it('refuses webviews', () => {
    const { emit } = setup();
    expect(emit('will-attach-webview')).toBe(true);
  });
  it('reports a failing openExternal instead of throwing', async () => {
    const { emit, errors } = setup(() => Promise.reject(new Error('no browser')));
    expect(emit('will-navigate', 'https://example.com/')).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('no browser');
  });
});

describe('attachGuards: window.open', () => {
  it('allows app-origin popups with the hardened options', () => {
    const { open } = setup();
    expect(open(`${APP}/preview`)).toEqual({ action: 'allow', overrideBrowserWindowOptions: { title: 'hardened' } });
  });
  it('denies external popups, sending http(s) to the system browser', () => {
    const { open, opened } = setup();
    expect(open('https://example.com/')).toEqual({ action: 'deny' });
    expect(open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(open('about:blank')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.com/']);
  });
});
