// Module hooks (node:module register) that write every specifier imported from now on to a file, one per line:
// how a test tells which packages a process loaded. Used as `register(url, { data: { file } })`.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  appendFileSync(file, `${specifier}\n`);
  return nextResolve(specifier, context);
}
