// The layers of server/, written once. server/architecture.test.ts holds the code to this table and
// docs/architecture.md's picture is generated from it (`npm run architecture`), so the picture cannot drift from
// what is checked. Tiers run top to bottom: a module imports, at run time, modules of its own tier or of a tier
// below. Type-only imports are free (erased by the compiler). An exception is a named edge the rules would refuse,
// with why it stays; the test fails when an exception is no longer needed, so the list only shrinks.

export interface Tier {
  name: string;
  /** Folders (repository-relative, ending in `/`) or single modules of this tier, with what each owns. */
  members: Array<[member: string, owns: string]>;
}

export const TIERS: Tier[] = [
  {
    name: 'entry points',
    members: [
      ['server/index.ts', 'startServer: the http.Server (timeouts, clientError, CONNECT, Upgrade), listen, close'],
      ['server/app.ts', 'the composition root: createApp builds stores, turn manager, MCP token, sweep, route table'],
      ['server/cli.ts', 'npm run serve / --server-only under Node'],
      ['server/headless.ts', 'run, print the URL, stop on a signal'],
      ['server/redact-cli.ts', 'npm run redact'],
    ],
  },
  {
    name: 'routes',
    members: [['server/handlers/', 'one file per route group; only app.ts imports them, never each other']],
  },
  {
    name: 'features a route calls',
    members: [
      ['server/mcp/', 'the MCP tools, token, sessions, clients and receipts (the route: handlers/mcp.ts)'],
      ['server/export/', 'export and import of conversations, the import sweep'],
      ['server/inbox/', 'the Inbox folders watcher, arrivals, Open with'],
      ['server/sessions/', 'deleting a session with Undo'],
    ],
  },
  {
    name: "a session's files",
    members: [
      ['server/attachments/', 'layout, open, extract, extracted, the upload and what the agent gets (agent-view)'],
      ['server/drafts/', "a composer's drafts, quick capture's, the sweep of uploads never sent"],
      ['server/search/', "the text of a stored attachment for the index, the backfill"],
    ],
  },
  {
    name: 'turns',
    members: [['server/agent/', 'turns, the upstream stream in layers (stream/), connections, the agent input (content/ parts in its dialect)']],
  },
  {
    name: 'what the agent is given of a conversation',
    members: [['server/context/', "a conversation's documents, their texts kept, passages, ranking, the turn's plan and report"]],
  },
  {
    name: 'what a file is and says',
    members: [
      ['server/content/', 'the one place that decides what a file is and what it says'],
      ['server/workspace/', "previews, PDF worker, raw bytes, an upload's target, store and undo"],
      ['server/ocr/', 'on-device text recognition'],
      ['server/speech/', 'on-device speech to text'],
      ['server/office/', 'Office documents to Markdown, their sidecars'],
      ['server/archive/', 'zip, tar and compressed files, streamed under caps'],
      ['server/image/', 'images bounded before they reach an agent'],
    ],
  },
  {
    name: 'transport',
    members: [
      ['server/http/', 'HTTP, generic over the application: lifecycle, respond, body, multipart, event-stream'],
      ['server/process/', "the state folder's lock, the port, stop"],
    ],
  },
  {
    name: 'what leaves the server',
    members: [['server/projections/', 'every value a response or an event carries, redacted and branded']],
  },
  {
    name: 'what is on disk',
    members: [['server/store/', 'sessions over db/, caps, profiles, workspaces, events, anchored files and browse, search index']],
  },
  {
    name: 'shared core',
    members: [['server/core/', 'config, errors, log, names, paths, mime, wire.d.ts (the API shapes the page shares)']],
  },
  {
    name: 'rules',
    members: [
      ['server/settings/', 'the configuration table and its parsers'],
      ['server/redact/', 'the redaction rules and the stream redactor; entered through index.ts'],
    ],
  },
];

/** Folders entered from outside only through their `index.ts`. */
export const SEALED_FOLDERS = ['server/redact/', 'server/content/'];

/** The one module that may import route handlers. */
export const COMPOSITION_ROOT = 'server/app.ts';
export const HANDLERS = 'server/handlers/';

/**
 * Where `HandlerInput` (a request, its app and its answer) may be named besides handlers/: the transport that
 * defines it generically and serves static files, and the root that binds it to `App`.
 */
export const HANDLER_INPUT_ALSO = ['server/http/lifecycle.ts', 'server/http/static.ts', COMPOSITION_ROOT];

/**
 * Folders whose type imports go down the tiers too: the core every layer (and the page, through wire.d.ts)
 * shares names nothing above it, or a change up there reaches everything.
 */
export const TYPES_DOWN_TOO = ['server/core/'];

/** The byte sniffers (by file name, wherever they live) and their signature helpers: content/'s alone. */
export const SNIFFER_FILES = ['file-kind.ts', 'text-encoding.ts'];
export const SNIFF_NAMES = ['imageMime', 'isPdf', 'isSvg', 'looksLikeText', 'sniffEncoding'];
export const CONTENT = 'server/content/';

/** The page, which may import the server only as types. */
export const PAGE = 'renderer/';

/**
 * Modules that import the composition root's `App` (or `HandlerInput`, which carries it): each takes the whole
 * application (16 services) where it uses a few. May only go down: lower it when a module stops.
 */
export const APP_NAMING_MAX = 35;

export interface Exception {
  rule: 'tier' | 'handlers' | 'handler-input' | 'sealed' | 'sniff' | 'page' | 'cycle';
  /** The importing (or naming) module. */
  from: string;
  /** The imported module, for an import rule. */
  to?: string;
  why: string;
}

/** Edges the rules refuse that stay for now, each with why. Only shrinks: an unneeded one fails the test. */
export const EXCEPTIONS: Exception[] = [];

/**
 * Structure the issue moves that no import rule above can see, listed so the picture says so. Not checked.
 */
export const PENDING: Array<[what: string, why: string]> = [];
