// The bounds of Satchel's in-turn tools (docs/spec-notes.md, "Satchel's own tools"). Every tool reads input the
// agent chose, so each result, each range and each turn's number of calls is bounded here, by name.

/**
 * Characters of one tool's result. A result goes back into the model's context with the whole history: a
 * tenth of the default per-turn budget (200,000) lets a model read a few pages per call without crowding out
 * the conversation, and a note says what was left and how to ask for it.
 */
export const MAX_TOOL_RESULT_CHARS = 20_000;
/**
 * Pages (slides, sheets) one read_file may ask for. A range past it is refused in a sentence rather than read
 * and cut: "1-100000" would otherwise make Satchel read a whole 150-page PDF to send back a few pages' worth.
 */
export const MAX_PAGES_PER_READ = 20;
/**
 * Rounds of tool calls in one turn (each a request to the agent, its calls run, the results sent back). Three
 * or four are what a model needs to list, read and search; past this the next request goes with
 * `tool_choice: none`, so the model answers with what it has rather than looping.
 */
export const MAX_TOOL_ROUNDS = 6;
/**
 * Tool calls run in one turn, all rounds together. Calls past it are answered with a sentence, not run: a model
 * that asks for a thousand reads gets a thousand short refusals, never a thousand file reads.
 */
export const MAX_TOOL_CALLS_PER_TURN = 32;
/**
 * Characters of all tool results in one turn. Every result is sent again with each later round, so past half the
 * default per-turn budget (200,000) the model's context would hold more tool output than conversation; calls past
 * it are answered with a sentence, not run.
 */
export const MAX_TOOL_RESULT_CHARS_PER_TURN = 100_000;
/** Passages search_documents answers with, best first: a handful is what a follow-up question needs. */
export const MAX_SEARCH_PASSAGES = 8;
/** Characters of a search query taken: a question, not a document pasted back. */
export const MAX_QUERY_CHARS = 1_000;
/** Characters of a tool's arguments read as JSON: every argument is a name, a range or a query. */
export const MAX_ARGUMENT_CHARS = 4_096;
/** Entries of the workspace list_files names (a bounded walk, depth first): a listing, not an inventory. */
export const MAX_LISTED_WORKSPACE_FILES = 200;
/** Folders deep list_files walks into the workspace. */
export const MAX_LISTING_DEPTH = 4;
