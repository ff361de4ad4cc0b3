/**
 * A command's long help (its `long`, as gh's `Long`) and a help topic's text, written once as light
 * markup and shown three ways: wrapped at 80 columns in the terminal, as Markdown in
 * docs/commands/, as roff in docs/man/. The markup: paragraphs apart by a blank line; a paragraph
 * whose lines all start with two spaces is a block of commands, shown as written; one that
 * starts with "- " is a list, one item per "- ". `code` in backquotes, as in Markdown.
 */

export type HelpBlock =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | { readonly kind: 'code'; readonly lines: readonly string[] };

/** The blocks of a long help, in order. */
export function helpBlocks(long: string): HelpBlock[] {
  return long
    .trim()
    .split(/\n[ \t]*\n/)
    .map((paragraph): HelpBlock => {
      const lines = paragraph.split('\n');
      if (lines.every((line) => line.startsWith('  '))) {
        return { kind: 'code', lines: lines.map((line) => line.slice(2)) };
      }
      if (lines[0]!.startsWith('- ')) return { kind: 'list', items: listItems(lines) };
      return { kind: 'text', text: lines.map((line) => line.trim()).join(' ') };
    });
}

/** The items of a list: each starts at a line that starts with "- " and goes on to the next. */
function listItems(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    if (line.startsWith('- ')) items.push(line.slice(2).trim());
    else items[items.length - 1] += ` ${line.trim()}`;
  }
  return items;
}

/** Words wrapped at `width`, each line after the first started with `indent`. */
export function wrapWords(text: string, width: number, first = '', indent = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** What a terminal shows of `code` spans: the text without its backquotes. */
export function plainText(text: string): string {
  return text.replace(/`([^`]+)`/g, '$1');
}

/** A long help as the terminal shows it: wrapped at `width`, lists with a hanging indent. */
export function terminalHelp(long: string, width = 80): string {
  return helpBlocks(long)
    .map((block) => {
      if (block.kind === 'code') return block.lines.map((line) => `  ${line}`).join('\n');
      if (block.kind === 'list') {
        return block.items.flatMap((item) => wrapWords(plainText(item), width, '- ', '  ')).join('\n');
      }
      return wrapWords(plainText(block.text), width).join('\n');
    })
    .join('\n\n');
}

/** A long help as Markdown: its paragraphs, lists and command blocks. */
export function markdownHelp(long: string): string {
  return helpBlocks(long)
    .map((block) => {
      if (block.kind === 'code') return ['```sh', ...block.lines, '```'].join('\n');
      if (block.kind === 'list') return block.items.map((item) => `- ${item}`).join('\n');
      return block.text;
    })
    .join('\n\n');
}

/** Text for roff: backslashes escaped, a line never starting as a request, `code` in bold. */
export function roffText(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/`([^`]+)`/g, '\\fB$1\\fR')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(
      /[^\x00-\x7f]/gu,
      (char) => `\\[u${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`,
    );
}

/** A long help as roff (man(7) macros). */
export function roffHelp(long: string): string {
  return helpBlocks(long)
    .map((block) => {
      if (block.kind === 'code')
        return ['.RS 4', '.nf', ...block.lines.map(roffText), '.fi', '.RE'].join('\n');
      if (block.kind === 'list')
        return block.items.map((item) => `.IP \\(bu 2\n${roffText(item)}`).join('\n');
      return `.PP\n${roffText(block.text)}`;
    })
    .join('\n');
}

/**
 * A help example's comment on exit codes, `# exit codes: 0 FINALIZED, 5 FAILED`, its numbers
 * taken from EXIT by the caller: no code is written by hand twice.
 */
export function exitCodesComment(codes: readonly (readonly [code: number, meaning: string])[]): string {
  return `# exit codes: ${codes.map(([code, meaning]) => `${code} ${meaning}`).join(', ')}`;
}
