import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHAT_AGENT_SETTINGS } from '../../server/agent/upstream-errors.js';
import { AGENT_SETTINGS_BUTTON, stopText } from './error-row.js';
import { formatTime } from './format.js';

const html = fs.readFileSync(new URL('../index.html', import.meta.url), 'utf8');

describe('names in messages match the UI', () => {
  it('"Agent settings → Chat agent" is the gear\'s name and its tab\'s, and the button names the tab', () => {
    const gear = /id="agent-settings-button"[^>]*aria-label="([^"]+)"/.exec(html)?.[1];
    const tab = /id="agent-tab-chat"[^>]*>([^<]+)</.exec(html)?.[1];
    expect(gear).toBe('Agent settings');
    expect(tab).toBe('Chat agent');
    expect(CHAT_AGENT_SETTINGS).toBe(`${gear} → ${tab}`);
    expect(AGENT_SETTINGS_BUTTON).toBe(`Open ${tab} settings`);
  });
});

describe('stopText', () => {
  it('says who stopped the turn and when, in the page\'s time format', () => {
    const t = Date.now() / 1000;
    expect(stopText('user', t)).toBe(`Stopped by you · ${formatTime(t)}`);
    expect(stopText('shutdown', t)).toBe(`Stopped when Satchel shut down · ${formatTime(t)}`);
    expect(stopText('user', undefined)).toBe('Stopped by you');
  });
});
