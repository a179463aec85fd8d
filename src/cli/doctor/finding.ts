/**
 * What `latch doctor` reports: findings, each with a level, a one-line title and the fix in words, printed for
 * people or as JSON. Pure: the checks (the other modules of this folder) produce findings, this module orders,
 * counts and prints them, and decides the exit status.
 */

/**
 * - ok: checked, nothing to do.
 * - note: worth knowing; nothing is wrong (a development setup, a rotation coming due).
 * - warning: works today, but degrades or will break (throttling per process, a backlog, an old key).
 * - problem: something does not work or is unsafe now; the exit status is 1.
 */
export const LEVELS = ['problem', 'warning', 'note', 'ok'] as const;
export type Level = (typeof LEVELS)[number];

export interface Finding {
  /** Which check: a short stable name (`issuer`, `secret`, `migrations`, …) for scripts. */
  check: string;
  level: Level;
  /** One line: what was found, with the numbers that matter, never a secret. */
  title: string;
  /** What to do, in words; null when there is nothing to do. */
  fix: string | null;
}

/** Problems make the exit status 1; warnings do not (Latch works; they are for a person to weigh). */
export function exitStatusOf(findings: readonly Finding[]): 0 | 1 {
  return findings.some((finding) => finding.level === 'problem') ? 1 : 0;
}

/** Most severe first; the checks' own order within a level. */
export function orderFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level));
}

export function countLevels(findings: readonly Finding[]): Record<Level, number> {
  const counts: Record<Level, number> = { problem: 0, warning: 0, note: 0, ok: 0 };
  for (const finding of findings) counts[finding.level] += 1;
  return counts;
}

const LABEL_WIDTH = 9;
const LINE_WIDTH = 110;

/** Breaks `text` into lines of at most `width` characters at spaces (a longer word stays whole). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The report for people: one block per finding, most severe first, and a summary line with the exit status. */
export function formatFindings(findings: readonly Finding[]): string {
  const indent = ' '.repeat(LABEL_WIDTH);
  const blocks = orderFindings(findings).map((finding) => {
    const [first = '', ...rest] = wrap(finding.title, LINE_WIDTH - LABEL_WIDTH);
    const lines = [`${finding.level.padEnd(LABEL_WIDTH)}${first}`, ...rest.map((line) => indent + line)];
    if (finding.fix) lines.push(...wrap(`fix: ${finding.fix}`, LINE_WIDTH - LABEL_WIDTH).map((line) => indent + line));
    return lines.join('\n');
  });
  const counts = countLevels(findings);
  const summary = `${plural(counts.problem, 'problem')}, ${plural(counts.warning, 'warning')}, ${plural(counts.note, 'note')}, ${counts.ok} ok`;
  return `${blocks.join('\n')}\n\n${summary}; exit status ${exitStatusOf(findings)}\n`;
}

/** The report for scripts (`--json`). */
export function findingsAsJson(findings: readonly Finding[]): { findings: Finding[]; counts: Record<Level, number>; exit_status: 0 | 1 } {
  return { findings: orderFindings(findings), counts: countLevels(findings), exit_status: exitStatusOf(findings) };
}
