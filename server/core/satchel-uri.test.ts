// The Satchel URIs a turn names files by instead of their paths (issue 36).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachmentUri, uriOfPath, workspaceUri } from './satchel-uri.js';

describe('a file named by its Satchel URI', () => {
  const attachments = path.join('/srv', 'state', 'attachments', 'abc123');
  const workspace = path.join('/home', 'ana', 'proj');
  const uri = uriOfPath('abc123', attachments, workspace);

  it('an attachment, a file of an extraction, a workspace file: each percent-encoded whole', () => {
    expect(uri(path.join(attachments, 'report.pdf'))).toBe('satchel://session/abc123/attachment/report.pdf');
    expect(uri(path.join(attachments, 'pack', 'data', 'x y.csv'))).toBe('satchel://session/abc123/attachment/pack%2Fdata%2Fx%20y.csv');
    expect(uri(path.join(workspace, 'src', 'main.ts'))).toBe('satchel://session/abc123/workspace/src%2Fmain.ts');
    expect(attachmentUri('s', 'a/b')).toBe('satchel://session/s/attachment/a%2Fb');
    expect(workspaceUri('s', 'docs/plan.md')).toBe('satchel://session/s/workspace/docs%2Fplan.md');
  });

  it('anything else (the folders themselves, a neighbour, outside) has none: it is named only', () => {
    expect(uri(attachments)).toBeUndefined();
    expect(uri(workspace)).toBeUndefined();
    expect(uri(path.join('/srv', 'state', 'attachments', 'abc1234', 'x.txt'))).toBeUndefined();
    expect(uri(path.join(attachments, '..', 'other', 'x.txt'))).toBeUndefined();
    expect(uri('/etc/passwd')).toBeUndefined();
    expect(uriOfPath('abc123', attachments)(path.join(workspace, 'a.md'))).toBeUndefined();
  });
});
