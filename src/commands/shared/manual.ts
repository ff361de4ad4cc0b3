/**
 * The manual, generated from the command definitions (the manifest) and the help topics, as gh's
 * `cmd/gen-docs`: one Markdown page per command and topic in docs/commands/, one man page each in
 * docs/man/ (installed by `npm install -g` through package.json's `man`), and the generated blocks of
 * the docs pages (the exit-code table, the JSON shapes). bin/commands-docs.mjs writes them at
 * build; test/unit/manual.test.ts regenerates them in memory and fails when a committed one differs.
 */
import type { ArgDef, CommandEntry, FlagDef } from '../define.js';
import { markdownHelp, roffHelp, roffText } from './help-text.js';
import { type HelpTopic, helpTopics, topicMarkdown, topicRoff, topicTableMarkdown } from './help-topics.js';

export interface ManualFile {
  /** from the project's root: docs/commands/lbrl-deposit-create.md, docs/man/lbrl-deposit-create.1 */
  readonly path: string;
  readonly text: string;
}

/** A block of a docs page that the build writes, between its two marker lines. */
export interface GeneratedBlock {
  readonly page: string;
  readonly name: string;
  readonly text: string;
}

/** "deposit create" -> "lbrl-deposit-create"; "" -> "lbrl". */
export function pageName(path: string): string {
  return ['lbrl', ...path.split(' ').filter(Boolean)].join('-');
}

const visible = (registry: readonly CommandEntry[]) => registry.filter((entry) => !entry.hidden);

function childrenOf(registry: readonly CommandEntry[], path: string): CommandEntry[] {
  return visible(registry).filter(
    (entry) =>
      entry.path !== '' &&
      entry.path.split(' ').length === (path ? path.split(' ').length + 1 : 1) &&
      (path === '' || entry.path.startsWith(`${path} `)),
  );
}

function parentOf(path: string): string | undefined {
  if (path === '') return undefined;
  return path.split(' ').slice(0, -1).join(' ');
}

function synopsis(entry: CommandEntry): string {
  const words = ['lbrl', entry.path].filter(Boolean);
  if (!entry.load) return `${words.join(' ')} <command>`;
  return [
    ...words,
    ...(entry.flags.length > 0 ? ['[options]'] : []),
    ...entry.args.map((arg) => arg.name),
  ].join(' ');
}

const flagHelp = (flag: FlagDef) =>
  flag.default !== undefined ? `${flag.help} (default: ${flag.default})` : flag.help;
const mdFlag = (flag: FlagDef) => `- \`${flag.flags}\`: ${flagHelp(flag)}`;
const mdArg = (arg: ArgDef) => `- \`${arg.name}\`: ${arg.help}`;
const mdLink = (path: string) => `[lbrl${path ? ` ${path}` : ''}](${pageName(path)}.md)`;

/** One command's page in docs/commands/. */
function commandMarkdown(registry: readonly CommandEntry[], entry: CommandEntry): string {
  const program = registry.find((e) => e.path === '')!;
  const parts = [`# lbrl${entry.path ? ` ${entry.path}` : ''}`, entry.description];
  if (entry.long) parts.push(markdownHelp(entry.long));
  parts.push('## Usage', `\`\`\`\n${synopsis(entry)}\n\`\`\``);
  if (entry.args.length > 0) parts.push('## Arguments', entry.args.map(mdArg).join('\n'));
  const children = childrenOf(registry, entry.path);
  if (children.length > 0) {
    parts.push('## Commands', children.map((c) => `- ${mdLink(c.path)}: ${c.description}`).join('\n'));
  }
  if (entry.flags.length > 0)
    parts.push(entry.path ? '## Options' : '## Options of every command', entry.flags.map(mdFlag).join('\n'));
  if (entry.path !== '' && entry.load) {
    parts.push(
      '## Options of every command',
      `${program.flags.map(mdFlag).join('\n')}\n- \`-h, --help\`: show help`,
    );
  }
  if (entry.examples?.length) parts.push('## Examples', `\`\`\`sh\n${entry.examples.join('\n')}\n\`\`\``);
  const see = [parentOf(entry.path)].filter((p): p is string => p !== undefined).map(mdLink);
  if (entry.path === '') {
    parts.push(
      '## Help topics',
      helpTopics()
        .map((t) => `- [lbrl help ${t.name}](lbrl-help-${t.name}.md): ${t.summary}`)
        .join('\n'),
    );
  }
  parts.push(
    '## See also',
    [...see.map((link) => `- ${link}`), `- \`man ${pageName(entry.path)}\``].join('\n'),
  );
  return `${parts.join('\n\n')}\n`;
}

function topicPage(topic: HelpTopic): string {
  const parts = [`# lbrl help ${topic.name}`, topic.summary, topicMarkdown(topic)];
  parts.push('## See also', `- ${mdLink('')}\n- \`man lbrl-help-${topic.name}\``);
  return `${parts.join('\n\n')}\n`;
}

const roffFlag = (flag: FlagDef) => {
  const [names, value] = flag.flags.split(/ (?=[<[])/);
  return `.TP\n\\fB${roffText(names!)}\\fR${value ? ` \\fI${roffText(value)}\\fR` : ''}\n${roffText(flagHelp(flag))}`;
};

function roffHeader(name: string, summary: string, version: string): string[] {
  return [
    `.TH ${name.toUpperCase().replace(/-/g, '\\-')} 1 "" "lbrl ${version}" "lbrl manual"`,
    '.SH NAME',
    `${roffText(name)} \\- ${roffText(summary)}`,
  ];
}

const roffExamples = (lines: readonly string[]) => ['.SH EXAMPLES', '.nf', ...lines.map(roffText), '.fi'];

/** One command's man page. */
function commandRoff(registry: readonly CommandEntry[], entry: CommandEntry, version: string): string {
  const program = registry.find((e) => e.path === '')!;
  const lines = [...roffHeader(pageName(entry.path), entry.description, version)];
  lines.push(
    '.SH SYNOPSIS',
    roffText(synopsis(entry)),
    '.SH DESCRIPTION',
    `.PP\n${roffText(entry.description)}`,
  );
  if (entry.long) lines.push(roffHelp(entry.long));
  if (entry.args.length > 0) {
    lines.push(
      '.SH ARGUMENTS',
      ...entry.args.map((arg) => `.TP\n\\fI${roffText(arg.name)}\\fR\n${roffText(arg.help)}`),
    );
  }
  const children = childrenOf(registry, entry.path);
  if (children.length > 0) {
    lines.push(
      '.SH COMMANDS',
      ...children.map((c) => `.TP\n\\fB${roffText(pageName(c.path))}\\fR(1)\n${roffText(c.description)}`),
    );
  }
  if (entry.flags.length > 0)
    lines.push(entry.path ? '.SH OPTIONS' : '.SH OPTIONS OF EVERY COMMAND', ...entry.flags.map(roffFlag));
  if (entry.path !== '' && entry.load)
    lines.push('.SH OPTIONS OF EVERY COMMAND', ...program.flags.map(roffFlag));
  if (entry.path === '') {
    const topics = helpTopics();
    const exitCodes = topics.find((t) => t.name === 'exit-codes')!;
    const environment = topics.find((t) => t.name === 'environment')!;
    lines.push('.SH EXIT STATUS', topicRoff(exitCodes), '.SH ENVIRONMENT', topicRoff(environment));
  }
  if (entry.examples?.length) lines.push(...roffExamples(entry.examples));
  const see = [parentOf(entry.path), ...(entry.path === '' ? helpTopics().map((t) => `help ${t.name}`) : [])];
  const refs = see.filter((p): p is string => p !== undefined).map((p) => `.BR ${roffText(pageName(p))} (1)`);
  if (refs.length > 0) lines.push('.SH SEE ALSO', refs.join(',\n'));
  return `${lines.join('\n')}\n`;
}

function topicRoffPage(topic: HelpTopic, version: string): string {
  const lines = [...roffHeader(`lbrl-help-${topic.name}`, topic.summary, version)];
  lines.push('.SH DESCRIPTION', topicRoff(topic), '.SH SEE ALSO', '.BR lbrl (1)');
  return `${lines.join('\n')}\n`;
}

/** Where the man pages are (package.json's `man` lists them, for `npm install -g`). */
export const MAN_DIR = 'docs/man';

/** Every generated page: docs/commands/*.md and docs/man/*.1, for each visible command and each topic. */
export function manualFiles(registry: readonly CommandEntry[], version: string): ManualFile[] {
  const files: ManualFile[] = [];
  for (const entry of visible(registry)) {
    files.push({ path: `docs/commands/${pageName(entry.path)}.md`, text: commandMarkdown(registry, entry) });
    files.push({ path: `${MAN_DIR}/${pageName(entry.path)}.1`, text: commandRoff(registry, entry, version) });
  }
  for (const topic of helpTopics()) {
    files.push({ path: `docs/commands/lbrl-help-${topic.name}.md`, text: topicPage(topic) });
    files.push({ path: `${MAN_DIR}/lbrl-help-${topic.name}.1`, text: topicRoffPage(topic, version) });
  }
  return files;
}

/** The blocks of the docs pages that are generated: the exit-code table, the JSON shapes. */
export function generatedBlocks(): GeneratedBlock[] {
  const topic = (name: string) => helpTopics().find((t) => t.name === name)!;
  return [
    { page: 'docs/using.md', name: 'exit-codes', text: topicTableMarkdown(topic('exit-codes')) },
    { page: 'docs/scripting.md', name: 'json', text: topicMarkdown(topic('json')) },
  ];
}

const begin = (name: string) =>
  `<!-- generated: lbrl help ${name} (npm run build writes it; edit src/ instead) -->`;
const end = (name: string) => `<!-- end of generated: lbrl help ${name} -->`;

/** The page with its block `name` replaced by `text`; an error when the page lacks the markers. */
export function spliced(page: string, name: string, text: string): string {
  const from = page.indexOf(begin(name));
  const to = page.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`no generated block "${name}" (its marker lines are missing)`);
  return `${page.slice(0, from)}${begin(name)}\n${text}\n${page.slice(to)}`;
}
