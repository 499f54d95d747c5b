import { describe, expect, it } from 'vitest';
import type { Attachment } from './api.js';
import { agentSubject, originNote, sentAttachments, uploadedChip } from './composer-chips.js';
import type { Chip } from './store.js';

const picked = (name: string): Chip => ({ id: 1, name, size: 120, origin: { kind: 'picked' }, status: 'uploading', loaded: 60 });
const stored = (filename: string, over: Partial<Attachment> = {}): Attachment => ({ filename, path: `/s/att/abc/${filename}`, size: 120, mime: 'application/zip', is_image: false, ...over });

describe('a chip once its upload is stored (issue 25, finding 7)', () => {
  it('takes the stored name: a second project.zip reads project-1.zip, as the message sends it', () => {
    const chip = uploadedChip(picked('project.zip'), stored('project-1.zip'));
    expect(chip).toMatchObject({ name: 'project-1.zip', status: 'done', loaded: 120 });
    expect(sentAttachments(chip)).toEqual([stored('project-1.zip')]);
  });

  it('an extraction of it is named by the stored archive too', () => {
    const chip = uploadedChip(picked('project.zip'), stored('project-1.zip'));
    const extracted: Chip = { ...chip, extract: { status: 'done', result: { ok: true, extracted: 1, files: ['project-1/a.txt'], dest: '/s/att/abc/project-1', skipped: [] } } };
    expect(sentAttachments(extracted)[1]).toMatchObject({ kind: 'extraction', name: 'project-1.zip' });
  });

  it('a decompressed .gz reads "server.log (from server.log.gz)"', () => {
    const chip = uploadedChip(picked('server.log.gz'), stored('server.log', { decompressed_from: 'server.log.gz', mime: 'text/plain' }));
    expect(chip.name).toBe('server.log');
    expect(originNote(chip)).toBe('(from server.log.gz)');
    expect(originNote(uploadedChip(picked('a.txt'), stored('a.txt')))).toBeNull();
  });
});

describe('what a chip asks the agent view of', () => {
  it('nothing while uploading; the stored upload once done; the extraction folder once extracted', () => {
    expect(agentSubject(picked('notes.txt'))).toBeUndefined();
    const done = uploadedChip(picked('project.zip'), stored('project-1.zip'));
    expect(agentSubject(done)).toEqual({ name: 'project-1.zip', stamp: '120' });
    expect(agentSubject({ ...done, extract: { status: 'running' } })).toBeUndefined();
    const extracted: Chip = { ...done, extract: { status: 'done', result: { ok: true, extracted: 1, files: ['project-1/a.txt'], dest: '/s/att/abc/project-1', skipped: [] } } };
    expect(agentSubject(extracted)).toEqual({ name: 'project-1', stamp: '/s/att/abc/project-1' });
  });
});
