import { describe, expect, it } from 'vitest';
import { NOT_SENT_UPLOAD_FAILED, pendingUploads, queuedSendStep, queuedSendText } from './send-when-ready.js';
import type { Chip } from './store.js';

const chip = (id: number, status: Chip['status'], extract?: Chip['extract']): Chip => ({ id, name: `f${id}.txt`, size: 10, origin: { kind: 'picked' }, status, loaded: 0, extract });

describe('a send queued behind uploads', () => {
  it('waits while any file is uploading, waiting to, or being extracted', () => {
    expect(queuedSendStep([chip(1, 'done'), chip(2, 'uploading')])).toBe('wait');
    expect(queuedSendStep([chip(1, 'queued')])).toBe('wait');
    expect(queuedSendStep([chip(1, 'done', { status: 'running' })])).toBe('wait');
    expect(pendingUploads([chip(1, 'done'), chip(2, 'uploading'), chip(3, 'queued')])).toBe(2);
  });
  it('sends once every file is stored, and gives up when one failed', () => {
    expect(queuedSendStep([chip(1, 'done'), chip(2, 'done')])).toBe('send');
    expect(queuedSendStep([])).toBe('send');
    expect(queuedSendStep([chip(1, 'done'), chip(2, 'error')])).toBe('failed');
    expect(NOT_SENT_UPLOAD_FAILED).toMatch(/^Not sent/);
  });
  it('says what it waits for, in the singular for one file', () => {
    expect(queuedSendText([chip(1, 'uploading')])).toBe('Queued: sends when the upload finishes.');
    expect(queuedSendText([chip(1, 'uploading'), chip(2, 'queued')])).toBe('Queued: sends when the uploads finish.');
  });
});
