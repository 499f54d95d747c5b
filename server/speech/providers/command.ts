// The custom command provider: an operator-configured program receives the uploaded file as it is
// (`{input}`) and prints the transcript, or a JSON verdict (see parseCommandOutput).
import { runCommand } from '../run-command.js';
import { assertSucceeded, parseCommandOutput } from './command-output.js';
import type { ProviderRunOptions, TranscribeResult } from './types.js';

export async function transcribeWithCommand(
  argv: readonly string[],
  filePath: string,
  opts: ProviderRunOptions & { timeoutMs: number },
): Promise<TranscribeResult> {
  const result = await runCommand(argv, { input: filePath, timeoutMs: opts.timeoutMs, signal: opts.signal });
  assertSucceeded(argv[0]!, result);
  return parseCommandOutput(result.stdout);
}
