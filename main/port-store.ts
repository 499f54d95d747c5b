// The remembered port lives with the server (server/port-store.ts): the headless server remembers its port too.
export * from '../server/port-store.js';
