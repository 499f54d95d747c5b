// The redactor lives in server/redact/ (one module per rule family); this path stays for its importers.
export * from './redact/index.js';
