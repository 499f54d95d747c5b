import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCredentialPath, isInside } from './paths.js';

describe('isInside', () => {
  it('holds the root and what lies under it, and refuses escapes and look-alike siblings', () => {
    expect(isInside('/srv/root', '/srv/root/a/b')).toBe(true);
    expect(isInside('/srv/root', '/srv/root')).toBe(true);
    expect(isInside('/srv/root', path.resolve('/srv/root', '../x'))).toBe(false);
    expect(isInside('/srv/root', '/etc/passwd')).toBe(false);
    expect(isInside('/srv/root', '/srv/rootx')).toBe(false);
    // A name that merely starts with two dots stays inside.
    expect(isInside('/srv/root', '/srv/root/..config.txt')).toBe(true);
  });
});

describe('isCredentialPath', () => {
  it('names credential stores at any depth, case-insensitively, including the two-level ones', () => {
    expect(isCredentialPath(['home', 'ana', '.ssh', 'id_ed25519'])).toBe(true);
    expect(isCredentialPath(['Users', 'ana', '.SSH'])).toBe(true);
    expect(isCredentialPath(['home', 'ana', '.config', 'gh', 'hosts.yml'])).toBe(true);
    expect(isCredentialPath(['home', 'ana', '.config', 'satchel'])).toBe(false);
    expect(isCredentialPath(['home', 'ana', 'gh'])).toBe(false);
  });
});
