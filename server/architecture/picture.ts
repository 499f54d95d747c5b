// docs/architecture.md's picture of the layers, generated from the table (tiers.ts), so the doc shows what
// architecture.test.ts checks. `npm run architecture` writes it between the markers; the test fails when the
// doc's block differs.
import type { Table } from './rules.js';

export const BEGIN = '<!-- layers:begin (generated from server/architecture/tiers.ts by npm run architecture; do not edit) -->';
export const END = '<!-- layers:end -->';
const WIDTH = 112;

export function picture(t: Table): string {
  const out: string[] = [];
  const rule = (left: string, title = '') => {
    const head = title ? `${left}─ ${title} ` : left;
    out.push(head + '─'.repeat(Math.max(0, WIDTH - head.length)));
  };
  const nameWidth = Math.max(...t.tiers.flatMap((tier) => tier.members.map(([m]) => short(m).length))) + 2;
  t.tiers.forEach((tier, i) => {
    rule(i === 0 ? '┌' : '├', `${i + 1}. ${tier.name}`);
    for (const [member, owns] of tier.members) out.push(`│ ${short(member).padEnd(nameWidth)}${owns}`);
  });
  rule('└');
  out.push(`A run-time import goes to its own tier or below (\`import type\` is free: erased by the compiler; not from ${t.typesDownToo.map(short).join(', ')}).`);
  out.push(`Only ${short(t.compositionRoot)} imports ${short(t.handlers)}; HandlerInput is named only there and in ${t.handlerInputAlso.filter((f) => f !== t.compositionRoot).map(short).join(', ')}.`);
  out.push(`Entered only through index.ts: ${t.sealedFolders.map(short).join(', ')}. Only ${short(t.content)} sniffs bytes (${t.snifferFiles.join(', ')}; ${t.sniffNames.join(', ')}).`);
  out.push(`The page (${t.page}) imports the server only as types. No run-time cycle. Modules naming App: at most ${t.appNamingMax}.`);
  if (t.exceptions.length > 0) {
    out.push('', 'Exceptions (may only shrink; the test fails when one is no longer needed):');
    for (const x of t.exceptions) out.push(`  ${x.rule.padEnd(13)} ${short(x.from)}${x.to ? ` → ${short(x.to)}` : ''}: ${x.why}`);
  }
  if (t.pending && t.pending.length > 0) {
    out.push('', 'Pending moves no import rule sees (listed, not checked):');
    for (const [what, why] of t.pending) out.push(`  ${what}: ${why}`);
  }
  return ['```', ...out, '```'].join('\n');
}

const short = (file: string) => file.replace(/^server\//, '');

/** `doc` with its block between the markers replaced by `block`. */
export function withPicture(doc: string, block: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} block`);
  return `${doc.slice(0, begin + BEGIN.length)}\n${block}\n${doc.slice(end)}`;
}
