// Shell arguments: the commands a string would run and what each can destroy, reach or change.
// Tokenised with shell-quote, split on control operators, then judged command by command: rm and
// friends by their targets, network tools by their host, privilege tools by what they grant, and a
// download piped into an interpreter as remote code execution. A string that does not tokenise
// fails closed. No I/O here; every regular expression is linear (no nested or adjacent quantifiers
// over the same characters).
import { parse } from 'shell-quote';
import { judgeHost } from './http.js';
import { maxRadius, type BlastRadius, type Sink } from './types.js';

/** Nested `sh -c`, `eval` and `$( )` levels analysed; deeper ones fail closed. */
const MAX_NESTING = 4;
/** Commands judged per argument; beyond this the argument fails closed. */
const MAX_COMMANDS = 2000;

type Token = string | { op: string };
/** What shell-quote returns, with the variable lookup answering strings. */
type Entry = string | { op: string; pattern?: string } | { comment: string };

interface Run {
  sink: Sink;
  argument: string;
  commands: number;
  /** Files a downloader in this argument wrote: running one later is remote code execution. */
  downloaded: Set<string>;
  /** Command names seen, for the shell.exec summary. */
  names: string[];
  /** The directory a `cd` in this argument moved to (absolute or under ~): `cd / && rm -rf *`. */
  cwd: string | null;
}

function push(run: Run, kind: string, radius: BlastRadius, destructive: boolean, reason: string): void {
  run.sink.findings.push({ kind, argument: run.argument, radius, destructive, reason });
}

function failClosed(run: Run, why: string): void {
  run.sink.unanalysable.push(`${run.argument}: ${why}`);
  push(run, 'shell.exec', 'total', true, `${why}; treated as destructive with total reach`);
}

/**
 * Analyses one shell argument into sink: `text` is a command line (or script), `argv` an already
 * split command (`["rm", "-rf", "/"]`) that is judged without tokenising.
 */
export function analyseShell(sink: Sink, argument: string, text: string, truncated: boolean, argv?: readonly string[]): void {
  const run: Run = { sink, argument, commands: 0, downloaded: new Set(), names: [], cwd: null };
  if (argv) {
    judgeStatement(run, [argv.slice()], [[]], 0);
  } else {
    if (forkBomb(text)) push(run, 'shell.system', 'total', true, 'a fork bomb: exhausts the machine');
    analyseText(run, text, 0);
  }
  if (truncated) failClosed(run, 'shell argument over 64 KB; the rest was not analysed');
  if (run.names.length > 0) {
    const shown = [...new Set(run.names)].slice(0, 6).join(', ');
    push(run, 'shell.exec', 'narrow', false, `runs ${run.names.length} command(s): ${shown}`);
  }
}

/** `:(){ :|:& };:` and its renamings: a function that pipes itself into itself in the background. */
function forkBomb(text: string): boolean {
  let from = 0;
  for (let found = 0; found < 16; found++) {
    const at = text.indexOf('()', from);
    if (at < 0) return false;
    from = at + 2;
    // The name: up to 64 non-space characters before "()".
    let start = at;
    while (start > 0 && at - start < 64 && !/\s|[;&|{}]/.test(text[start - 1] ?? ' ')) start--;
    const name = text.slice(start, at);
    if (name.length === 0) continue;
    const body = text.slice(at + 2, at + 2 + 256).replace(/\s+/g, '');
    if (body.startsWith(`{${name}|${name}&`)) return true;
  }
  return false;
}

function analyseText(run: Run, text: string, depth: number): void {
  if (depth > MAX_NESTING) return failClosed(run, 'shell nested deeper than 4 levels');
  // A newline separates commands, but shell-quote reads a `#` comment to the end of the whole
  // string, which would hide every later line; so each line is tokenised on its own, after
  // backslash-newline continuations are joined (else `rm -rf \<newline> /` would lose its target).
  for (const line of text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    if (line.trim().length === 0) continue;
    // Backticks run their content; shell-quote splits an unquoted `rm -rf /` into words, so the
    // content is cut out of the raw line (even inside single quotes: erring towards analysis).
    let tick = line.indexOf('`');
    for (let pairs = 0; tick >= 0 && pairs < 64; pairs++) {
      const close = line.indexOf('`', tick + 1);
      if (close < 0) break;
      if (close > tick + 1) analyseText(run, line.slice(tick + 1, close), depth + 1);
      tick = line.indexOf('`', close + 1);
    }
    let entries: Entry[];
    try {
      // Variables stay as written ($HOME), so `rm -rf $HOME` is judged by what it names.
      entries = parse(line, (name: string) => `$${name}`) as Entry[];
    } catch {
      failClosed(run, 'shell did not parse');
      continue;
    }
    const tokens: Token[] = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry === undefined) continue;
      if (typeof entry === 'string') {
        // "$" then "(" is a command substitution: mark it so the inner command is split off.
        const next = entries[i + 1];
        if (entry === '$' && typeof next === 'object' && 'op' in next && next.op === '(') {
          tokens.push({ op: '$(' });
          i++;
        } else {
          tokens.push(entry);
        }
      } else if ('comment' in entry) {
        break;
      } else if (entry.op === 'glob') {
        tokens.push(entry.pattern ?? '*');
      } else {
        tokens.push({ op: entry.op });
      }
    }
    analyseTokens(run, tokens, depth);
  }
}

const STATEMENT_OPS = new Set([';', '&&', '||', '&', ';;']);
const COMMAND_OPS = new Set(['|', '|&', '(', ')', '$(', '<(']);
const REDIRECT_OPS = new Set(['>', '>>', '>&', '<']);

/** Splits tokens into statements (`;`, `&&`, `||`, `&`), each a list of simple commands. */
function analyseTokens(run: Run, tokens: Token[], depth: number): void {
  let commands: string[][] = [[]];
  let redirects: Array<Array<{ op: string; target: string }>> = [[]];
  let pendingRedirect: string | null = null;
  const flush = (): void => {
    judgeStatement(run, commands, redirects, depth);
    commands = [[]];
    redirects = [[]];
  };
  for (const token of tokens) {
    if (typeof token === 'string') {
      if (pendingRedirect) {
        redirects[redirects.length - 1]?.push({ op: pendingRedirect, target: token });
        pendingRedirect = null;
      } else {
        commands[commands.length - 1]?.push(token);
      }
    } else if (STATEMENT_OPS.has(token.op)) {
      flush();
    } else if (COMMAND_OPS.has(token.op)) {
      commands.push([]);
      redirects.push([]);
    } else if (REDIRECT_OPS.has(token.op)) {
      // `2>&1`: the "2" already went to the command as a word; harmless for judging.
      pendingRedirect = token.op;
    }
  }
  flush();
}

const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'ash']);
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'pwsh', 'powershell', 'lua', 'deno', 'bun', 'osascript']);
const WRAPPERS = new Set(['nohup', 'time', 'command', 'builtin', 'exec', 'nice', 'ionice', 'stdbuf', 'timeout', 'then', 'do', 'else', '!', '{', '}', 'watch', 'strace', 'chroot', 'setsid', 'unbuffer']);

/** Judges one statement: its simple commands, then a download feeding an interpreter inside it. */
function judgeStatement(run: Run, commands: string[][], redirects: Array<Array<{ op: string; target: string }>>, depth: number): void {
  let downloads = false;
  let interpreterReadsInput = false;
  for (let i = 0; i < commands.length; i++) {
    const words = commands[i] ?? [];
    if (words.length === 0 && (redirects[i]?.length ?? 0) === 0) continue;
    if (++run.commands > MAX_COMMANDS) {
      if (run.commands === MAX_COMMANDS + 1) failClosed(run, `more than ${MAX_COMMANDS} shell commands`);
      return;
    }
    const seen = judgeCommand(run, words, depth);
    for (const redirect of redirects[i] ?? []) judgeRedirect(run, redirect.op, redirect.target);
    if (seen.downloadsToOutput) downloads = true;
    if (seen.interpreterReadsInput) interpreterReadsInput = true;
  }
  // `curl … | sh`, `bash <(curl …)`, `sh -c "$(wget -O- …)"`: the downloaded text runs.
  if (downloads && interpreterReadsInput) {
    push(run, 'shell.remote_exec', 'total', true, 'runs code downloaded from the network (download piped into an interpreter)');
  }
}

interface CommandSeen {
  /** A downloader writing to stdout (it can feed a pipe or substitution). */
  downloadsToOutput: boolean;
  /** An interpreter reading its program from stdin, a pipe or a substitution. */
  interpreterReadsInput: boolean;
}

function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return (slash >= 0 ? word.slice(slash + 1) : word).toLowerCase();
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]{0,127}=/;

/** Options of sudo that take a value (the next word). */
const SUDO_VALUE_OPTIONS = new Set(['-u', '-g', '-C', '-p', '-h', '-U', '-r', '-t', '-D', '-T', '-R']);

function judgeCommand(run: Run, input: string[], depth: number): CommandSeen {
  const seen: CommandSeen = { downloadsToOutput: false, interpreterReadsInput: false };
  let words = input;
  let fromInput = false;
  // Peel wrappers: assignments, sudo, env, nohup, xargs …, judging the privilege ones on the way.
  for (let guard = 0; guard < 16 && words.length > 0; guard++) {
    const first = words[0] ?? '';
    const name = basename(first);
    if (ASSIGNMENT.test(first)) {
      words = words.slice(1);
    } else if (name === 'sudo' || name === 'doas') {
      let i = 1;
      let rootShell = false;
      let asUser = 'root';
      while (i < words.length && (words[i] ?? '').startsWith('-')) {
        const option = words[i] ?? '';
        if (option === '--') {
          i++;
          break;
        }
        if (option === '-u') asUser = words[i + 1] ?? asUser;
        if (SUDO_VALUE_OPTIONS.has(option)) i++;
        else if (/^-[a-zA-Z]*[is]/.test(option)) rootShell = true;
        i++;
      }
      words = words.slice(i);
      run.names.push(name);
      const nested = basename(words[0] ?? '');
      if (rootShell || nested === 'su' || (SHELLS.has(nested) && words.length === 1)) {
        push(run, 'shell.privilege', 'total', false, `${name} opens a shell as ${asUser}`);
      } else {
        push(run, 'shell.privilege', 'broad', false, `${name} runs ${nested || 'a command'} as ${asUser}`);
      }
    } else if (name === 'su') {
      run.names.push('su');
      const c = words.indexOf('-c');
      push(run, 'shell.privilege', c >= 0 ? 'broad' : 'total', false, c >= 0 ? 'su runs a command as another user' : 'su opens a shell as another user');
      if (c >= 0 && words[c + 1] !== undefined) analyseText(run, words[c + 1] ?? '', depth + 1);
      return seen;
    } else if (name === 'env') {
      let i = 1;
      while (i < words.length && ((words[i] ?? '').startsWith('-') || ASSIGNMENT.test(words[i] ?? ''))) {
        if (words[i] === '-u' || words[i] === '-C') i++;
        i++;
      }
      words = words.slice(i);
    } else if (name === 'xargs') {
      // The targets come from input we cannot see.
      fromInput = true;
      let i = 1;
      while (i < words.length && (words[i] ?? '').startsWith('-')) {
        if (/^-[IdEnLPs]$/.test(words[i] ?? '')) i++;
        i++;
      }
      words = words.slice(i);
    } else if (WRAPPERS.has(name)) {
      let i = 1;
      // `timeout 10 cmd`, `nice -n 5 cmd`: skip options and a leading number.
      while (i < words.length && ((words[i] ?? '').startsWith('-') || /^\d+[smhd]?$/.test(words[i] ?? ''))) {
        if (words[i] === '-n' || words[i] === '-c') i++;
        i++;
      }
      words = words.slice(i);
    } else {
      break;
    }
  }
  if (words.length === 0) return seen;
  const name = basename(words[0] ?? '');
  run.names.push(name);
  const args = words.slice(1);
  // $( ) inside a quoted word (shell-quote leaves it in the string) runs too.
  for (const word of words) {
    const dollar = word.indexOf('$(');
    if (dollar >= 0) analyseText(run, word.slice(dollar + 2).replace(/\)[^)]*$/, ''), depth + 1);
  }
  if (run.downloaded.has(words[0] ?? '') || run.downloaded.has(basename(words[0] ?? ''))) {
    push(run, 'shell.remote_exec', 'total', true, `runs ${words[0]}, a file downloaded earlier in the same command`);
  }
  switch (name) {
    case 'cd':
    case 'pushd':
      run.cwd = resolve(run, args[0] ?? '~');
      break;
    case 'rm':
    case 'shred':
    case 'srm':
    case 'unlink':
    case 'rmdir':
      judgeRemove(run, name, args, fromInput);
      break;
    case 'find':
      judgeFind(run, args, depth);
      break;
    case 'dd':
      judgeDd(run, args);
      break;
    case 'truncate':
      push(run, 'shell.delete', 'narrow', true, 'truncate empties files');
      break;
    case 'chmod':
    case 'chown':
    case 'chgrp':
    case 'setfacl':
      judgeChmod(run, name, args);
      break;
    case 'useradd':
    case 'adduser':
    case 'usermod':
    case 'userdel':
    case 'passwd':
    case 'chpasswd':
    case 'groupadd':
    case 'gpasswd':
    case 'visudo':
    case 'setcap':
      push(run, 'shell.privilege', 'broad', name === 'userdel', `${name} changes accounts or privileges`);
      break;
    case 'git':
      judgeGit(run, args);
      break;
    case 'kill':
    case 'pkill':
    case 'killall':
      judgeKill(run, name, args);
      break;
    case 'shutdown':
    case 'reboot':
    case 'halt':
    case 'poweroff':
      push(run, 'shell.system', 'total', true, `${name} stops the machine and everything running on it`);
      break;
    case 'init':
    case 'telinit':
      if (args[0] === '0' || args[0] === '6') push(run, 'shell.system', 'total', true, `${name} ${args[0]} stops the machine`);
      break;
    case 'systemctl':
      judgeSystemctl(run, args);
      break;
    case 'crontab':
      if (args.includes('-r')) push(run, 'shell.delete', 'narrow', true, 'crontab -r deletes every scheduled job');
      break;
    case 'mv':
      if (args.includes('/dev/null')) push(run, 'shell.delete', 'narrow', true, 'mv to /dev/null destroys the file');
      break;
    case 'eval':
      analyseText(run, args.join(' '), depth + 1);
      break;
    case 'source':
    case '.':
      if (args[0] !== undefined && (run.downloaded.has(args[0]) || run.downloaded.has(basename(args[0])))) {
        push(run, 'shell.remote_exec', 'total', true, `sources ${args[0]}, downloaded earlier in the same command`);
      }
      if (args.length === 0 || args[0] === '/dev/stdin') seen.interpreterReadsInput = true;
      break;
    case 'nc':
    case 'ncat':
    case 'netcat':
    case 'socat':
    case 'telnet':
      judgeSocket(run, name, args);
      break;
    case 'scp':
    case 'sftp':
    case 'rsync':
      judgeCopy(run, name, args);
      break;
    case 'ssh':
      judgeSsh(run, args);
      break;
    case 'del':
    case 'erase':
    case 'rd':
    case 'remove-item':
    case 'format':
      judgeWindowsRemove(run, name, args);
      break;
    default:
      if (name.startsWith('mkfs') || ['mke2fs', 'mkswap', 'wipefs', 'fdisk', 'sfdisk', 'parted', 'sgdisk', 'blkdiscard'].includes(name)) {
        push(run, 'shell.delete', 'total', true, `${name} rewrites a disk or partition: every file on it is lost`);
      } else if (DOWNLOADERS.has(name)) {
        seen.downloadsToOutput = judgeDownloader(run, name, args);
      } else if (SHELLS.has(name)) {
        seen.interpreterReadsInput = judgeShellInterpreter(run, name, args, depth);
      } else if (INTERPRETERS.has(name) || /^python\d/.test(name)) {
        seen.interpreterReadsInput = judgeInterpreter(run, name, args);
      }
  }
  return seen;
}

/** The reach of a recursive (or plain) change to a path, and why. */
export function pathRadius(raw: string, recursive: boolean): { radius: BlastRadius; why: string } {
  let target = raw.trim();
  if (target.length === 0) return { radius: 'broad', why: 'an empty target' };
  // "/", "//", "/*", "/." are all the root.
  if (/^\/+(?:\*|\.)?$/.test(target)) return { radius: 'total', why: 'the root filesystem' };
  if (/^(?:~[a-z_]*|\$HOME|\$\{HOME\})\/?\*?$/.test(target)) return { radius: 'total', why: 'the home directory' };
  if (target.includes('$')) return { radius: 'broad', why: `${target}: an unexpanded variable, which may be empty and leave "/"` };
  if (/^(?:\.{1,2}\/?|\.\/\*|\.\.\/\*|\*|\.\*)$/.test(target)) return { radius: 'broad', why: 'everything in the working directory' };
  while (target.length > 1 && target.endsWith('/')) target = target.slice(0, -1);
  if (target.startsWith('~/')) {
    const depth = target.split('/').length - 1;
    return recursive && depth <= 1 ? { radius: 'broad', why: `${target}: a whole folder of the home directory` } : { radius: 'narrow', why: target };
  }
  if (!target.startsWith('/')) return { radius: 'narrow', why: target };
  const segments = target.split('/').filter((segment) => segment.length > 0 && segment !== '.');
  const top = segments[0] ?? '';
  if (SYSTEM_DIRS.has(top)) {
    if (segments.length === 1 || (segments.length === 2 && segments[1] === '*')) return { radius: 'total', why: `/${top}, a system directory` };
    if (top === 'home' || top === 'Users') {
      return recursive && segments.length === 2 ? { radius: 'broad', why: `${target}: a user's whole home directory` } : { radius: 'narrow', why: target };
    }
    if (top === 'tmp' || (top === 'var' && segments[1] === 'tmp')) return { radius: recursive && segments.length === 2 && segments[1] === '*' ? 'broad' : 'narrow', why: target };
    return { radius: 'broad', why: `${target}, inside the system directory /${top}` };
  }
  return { radius: recursive && segments.length <= 1 ? 'broad' : 'narrow', why: target };
}

const SYSTEM_DIRS = new Set(['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'opt', 'proc', 'root', 'sbin', 'srv', 'sys', 'usr', 'var', 'mnt', 'media', 'snap', 'Users', 'System', 'Library', 'Applications', 'tmp']);

function judgeRemove(run: Run, name: string, args: string[], fromInput: boolean): void {
  let recursive = name === 'srm';
  let noPreserveRoot = false;
  const targets: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('--')) {
      if (arg === '--recursive') recursive = true;
      if (arg === '--no-preserve-root') noPreserveRoot = true;
    } else if (options && arg.startsWith('-') && arg.length > 1) {
      if (/[rR]/.test(arg)) recursive = true;
    } else targets.push(arg);
  }
  let radius: BlastRadius = 'none';
  const whys: string[] = [];
  for (const target of targets.slice(0, 64)) {
    const judged = pathRadius(resolve(run, target), recursive);
    radius = maxRadius(radius, judged.radius);
    if (judged.radius !== 'narrow' || whys.length < 3) whys.push(judged.why);
  }
  if (fromInput) {
    radius = maxRadius(radius, 'broad');
    whys.push('targets come from input (xargs)');
  }
  if (noPreserveRoot) {
    radius = 'total';
    whys.push('--no-preserve-root');
  }
  if (targets.length === 0 && !fromInput) return;
  const how = recursive ? `${name} -r` : name;
  push(run, 'shell.delete', radius === 'none' ? 'narrow' : radius, true, `${how} deletes ${whys.slice(0, 4).join('; ')}`);
}

/** An absolute form of target against the argument's `cd`, or target itself. */
function resolve(run: Run, target: string): string {
  if (target.startsWith('/') || target.startsWith('~') || target.startsWith('$') || /^[a-zA-Z]:[\\/]/.test(target)) return target;
  if (run.cwd === null || !(run.cwd.startsWith('/') || run.cwd.startsWith('~'))) return target;
  const base = run.cwd.endsWith('/') ? run.cwd : `${run.cwd}/`;
  if (target === '.' || target === './') return run.cwd;
  return `${base}${target.startsWith('./') ? target.slice(2) : target}`;
}

/** `del /s /q C:\`, `rd /s`, `Remove-Item -Recurse`, `format C:`: the same judgement on Windows paths. */
function judgeWindowsRemove(run: Run, name: string, args: string[]): void {
  if (name === 'format') {
    if (args.some((arg) => /^[a-zA-Z]:$/.test(arg))) push(run, 'shell.delete', 'total', true, `format ${args[0] ?? ''} erases a drive`);
    return;
  }
  const recursive = args.some((arg) => /^[/-](?:s|recurse)$/i.test(arg));
  const targets = args.filter((arg) => !/^[/-][a-zA-Z]+$/.test(arg));
  if (targets.length === 0) return;
  let radius: BlastRadius = 'narrow';
  for (const target of targets.slice(0, 64)) {
    // A drive root ("C:\\", "C:/", "C:\\*") or the Windows folder is the whole system. shell-quote
    // reads backslashes as escapes, so "C:\\Windows" may arrive as "C:Windows".
    if (/^[a-zA-Z]:[\\/]?\*?$/.test(target) || /^[a-zA-Z]:[\\/]?(?:windows|users|program files)[\\/]?$/i.test(target)) radius = 'total';
    else radius = maxRadius(radius, pathRadius(target.replace(/\\/g, '/'), recursive).radius);
  }
  push(run, 'shell.delete', radius, true, `${name}${recursive ? ' recursively' : ''} deletes ${targets.slice(0, 3).join(', ')}`);
}

function judgeFind(run: Run, args: string[], depth: number): void {
  const deletes = args.includes('-delete');
  const exec = args.indexOf('-exec') >= 0 ? args.indexOf('-exec') : args.indexOf('-execdir');
  const start = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : '.';
  if (deletes) {
    const judged = pathRadius(resolve(run, start), true);
    push(run, 'shell.delete', judged.radius, true, `find -delete under ${judged.why}`);
  }
  if (exec >= 0) {
    const end = args.findIndex((arg, i) => i > exec && (arg === ';' || arg === '+'));
    const inner = args.slice(exec + 1, end > exec ? end : undefined).map((arg) => (arg === '{}' ? start : arg));
    if (inner.length > 0) judgeStatement(run, [inner], [[]], depth + 1);
  }
}

function judgeDd(run: Run, args: string[]): void {
  const output = args.find((arg) => arg.startsWith('of='))?.slice(3);
  if (output === undefined) return;
  if (/^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper\/|loop)/.test(output)) {
    push(run, 'shell.delete', 'total', true, `dd overwrites the block device ${output}: every file on it is lost`);
  } else if (output !== '/dev/null') {
    const judged = pathRadius(output, false);
    push(run, 'shell.delete', judged.radius, true, `dd overwrites ${judged.why}`);
  }
}

function judgeRedirect(run: Run, op: string, target: string): void {
  if (op === '<' || /^\d+$/.test(target) || target === '/dev/null' || target.startsWith('/dev/std') || target === '-') return;
  if (/^\/etc\/(?:sudoers|passwd|shadow|group)/.test(target)) {
    push(run, 'shell.privilege', 'total', true, `writes to ${target}: changes who may log in or act as root`);
    return;
  }
  if (/^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)/.test(target)) {
    push(run, 'shell.delete', 'total', true, `writes over the block device ${target}`);
    return;
  }
  if (op === '>>') return;
  const judged = pathRadius(resolve(run, target), false);
  push(run, 'shell.overwrite', judged.radius, true, `> overwrites ${judged.why}`);
}

function judgeChmod(run: Run, name: string, args: string[]): void {
  const recursive = args.some((arg) => arg === '-R' || arg === '--recursive' || /^-[a-zA-Z]*R/.test(arg));
  const operands = args.filter((arg) => !arg.startsWith('-'));
  const mode = operands[0] ?? '';
  const targets = operands.slice(1);
  let radius: BlastRadius = 'narrow';
  let why = targets.slice(0, 3).join(', ');
  for (const target of targets.slice(0, 64)) {
    const judged = pathRadius(resolve(run, target), recursive);
    if (judged.radius !== 'narrow') why = judged.why;
    radius = maxRadius(radius, judged.radius);
  }
  if (!recursive && radius !== 'total') radius = radius === 'broad' ? 'broad' : 'narrow';
  const open = name === 'chmod' && /(?:^|[^0-7])[0-7]?[0-7]{2}[67]$|o\+w|a\+w|a\+rwx|\+s|^[2467][0-7]{3}$/.test(mode);
  const what = name === 'chmod' ? (open ? `opens permissions (${mode}) on` : `changes permissions (${mode}) on`) : `${name} changes ownership of`;
  // Recursively changing modes or owners over a system tree cannot be undone by hand.
  const destructive = recursive && (radius === 'broad' || radius === 'total');
  if (open || recursive || name !== 'chmod' || radius !== 'narrow') {
    push(run, 'shell.privilege', radius, destructive, `${what} ${recursive ? 'everything under ' : ''}${why || 'files'}`);
  }
}

function judgeGit(run: Run, args: string[]): void {
  const sub = args.find((arg) => !arg.startsWith('-')) ?? '';
  if (sub === 'push') {
    const force = args.some((arg) => arg === '-f' || arg === '--force' || arg.startsWith('--force-with-lease') || arg === '--mirror' || /^\+\S/.test(arg));
    const remove = args.some((arg) => arg === '--delete' || arg === '-d' || /^:\S/.test(arg));
    if (force) push(run, 'shell.overwrite', 'broad', true, 'git push --force rewrites the remote history for everyone');
    else if (remove) push(run, 'shell.delete', 'narrow', true, 'git push deletes a remote branch');
  } else if (sub === 'reset' && args.includes('--hard')) {
    push(run, 'shell.delete', 'narrow', true, 'git reset --hard discards uncommitted work');
  } else if (sub === 'clean' && args.some((arg) => /^-[a-zA-Z]*f/.test(arg))) {
    push(run, 'shell.delete', 'narrow', true, 'git clean -f deletes untracked files');
  }
}

function judgeKill(run: Run, name: string, args: string[]): void {
  // The signal comes first (`-9`, `-KILL`, `-s KILL`); after it, "-1" means every process the user
  // may signal and "1" is init.
  const first = args[0] ?? '';
  const afterSignal = first === '-s' || first === '-n' ? 2 : /^-(?:\d+|[A-Z]+)$/.test(first) && args.length > 1 ? 1 : 0;
  const targets = args.slice(afterSignal);
  if (targets.includes('-1') || targets.includes('1')) {
    push(run, 'shell.system', 'total', true, `${name} ${args.join(' ')} kills every process (or init)`);
  } else if (name !== 'kill') {
    push(run, 'shell.system', 'broad', true, `${name} kills processes by name`);
  }
}

function judgeSystemctl(run: Run, args: string[]): void {
  const verb = args.find((arg) => !arg.startsWith('-')) ?? '';
  if (['poweroff', 'reboot', 'halt', 'kexec', 'emergency', 'rescue'].includes(verb)) {
    push(run, 'shell.system', 'total', true, `systemctl ${verb} stops the machine`);
  } else if (['stop', 'disable', 'mask', 'kill'].includes(verb)) {
    push(run, 'shell.system', 'broad', false, `systemctl ${verb} stops a service`);
  }
}

/** Host of a URL or bare host word; '' when it has none. */
function hostOf(word: string): string {
  const text = word.includes('://') ? word : `http://${word}`;
  try {
    return new URL(text).hostname;
  } catch {
    return '';
  }
}

const CURL_WRITE = new Set(['-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '-F', '--form', '--form-string', '--json', '-T', '--upload-file']);
const CURL_VALUE = new Set(['-H', '--header', '-u', '--user', '-A', '--user-agent', '-e', '--referer', '-b', '--cookie', '-c', '--cookie-jar', '-x', '--proxy', '-m', '--max-time', '--connect-timeout', '-w', '--write-out', '-K', '--config', '--cacert', '--cert', '--key', '-E', '-r', '--range', '--retry', '-C', '--resolve', '--url']);

/** Judges curl, wget and the like; returns whether the download goes to stdout. */
function judgeDownloader(run: Run, name: string, args: string[]): boolean {
  let method = '';
  let write = false;
  let output: string | null = null;
  let url = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const next = args[i + 1];
    if (arg === '-X' || arg === '--request' || arg === '--method') {
      method = (next ?? '').toUpperCase();
      i++;
    } else if (arg.startsWith('-X') && arg.length > 2) method = arg.slice(2).toUpperCase();
    else if (arg.startsWith('--method=')) method = arg.slice(9).toUpperCase();
    else if (CURL_WRITE.has(arg) || arg.startsWith('--post-') || arg.startsWith('--body-')) {
      write = true;
      if (!arg.includes('=')) i++;
    } else if (arg === '-o' || arg === '--output' || arg === '-O' || arg === '--output-document') {
      // curl -O names the file after the URL; wget -O takes a file ("-" is stdout).
      if (name === 'curl' && arg === '-O') output = '';
      else {
        output = next ?? '';
        i++;
      }
    } else if (arg.startsWith('--output-document=')) output = arg.slice(18);
    else if (name === 'wget' && arg.length > 2 && arg[0] === '-' && arg[1] !== '-' && arg.includes('O')) {
      // Combined short options: `-qO-`, `-qO file`.
      const rest = arg.slice(arg.indexOf('O') + 1);
      if (rest) output = rest;
      else {
        output = next ?? '';
        i++;
      }
    }
    else if (arg === '--url') {
      url = next ?? '';
      i++;
    } else if (CURL_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-') && url === '') url = arg;
  }
  if (method !== '' && method !== 'GET' && method !== 'HEAD') write = true;
  const host = hostOf(url);
  const where = host || 'an unknown host';
  const judged = judgeHost(host || 'unknown', write, run.sink.knownHosts);
  const radius: BlastRadius = host ? judged.radius : write ? 'broad' : 'narrow';
  if (write) {
    push(run, 'shell.network', radius, method === 'DELETE', `${name} ${method || 'POST'} ${host ? judged.reason : `sends data to ${where}`}`);
  } else {
    push(run, 'shell.download', radius, false, `${name} ${host ? judged.reason : `downloads from ${where}`}`);
  }
  if (output !== null && output !== '' && output !== '-') {
    run.downloaded.add(output);
    run.downloaded.add(basename(output));
  } else if (output === '' && url) {
    const file = basename(url.split('?')[0] ?? '');
    if (file) run.downloaded.add(file);
  }
  // curl writes to stdout unless told otherwise; wget writes a file unless -O -.
  return name === 'wget' ? output === '-' : output === null || output === '-';
}

/** `$(curl …)` or a backtick download inside a script string. */
const SUBSTITUTED_DOWNLOAD = /(?:\$\(|`)\s*(?:curl|wget|fetch)\b/;

/** `sh -c "…"` is analysed; `sh` alone (or `-s`, `-`) reads its program from input. */
function judgeShellInterpreter(run: Run, name: string, args: string[], depth: number): boolean {
  // Short options only, `-c` possibly combined (`-ec`); tested without a regex that could backtrack.
  const c = args.findIndex((arg) => arg.length > 1 && arg.length < 16 && arg[0] === '-' && arg[1] !== '-' && arg.includes('c'));
  if (c >= 0) {
    const script = args[c + 1];
    if (script !== undefined) {
      analyseText(run, script, depth + 1);
      if (SUBSTITUTED_DOWNLOAD.test(script.slice(0, 4096))) {
        push(run, 'shell.remote_exec', 'total', true, `${name} -c runs the output of a download`);
      }
    }
    // `sh -c "$(curl …)"`: the substitution was split off as its own command in this statement.
    return script === undefined || script.length === 0;
  }
  const operand = args.find((arg) => !arg.startsWith('-'));
  if (operand === undefined || operand === '-' || operand.startsWith('/dev/fd/') || operand === '/dev/stdin') return true;
  if (run.downloaded.has(operand) || run.downloaded.has(basename(operand))) {
    push(run, 'shell.remote_exec', 'total', true, `${name} runs ${operand}, downloaded earlier in the same command`);
  }
  return false;
}

function judgeInterpreter(run: Run, name: string, args: string[]): boolean {
  const inline = args.findIndex((arg) => arg === '-c' || arg === '-e' || arg === '--eval' || arg === '-Command' || arg === '-r');
  if (inline >= 0) {
    push(run, 'shell.exec', 'broad', false, `${name} runs inline code that is not analysed`);
    return false;
  }
  const operand = args.find((arg) => !arg.startsWith('-'));
  if (operand !== undefined && (run.downloaded.has(operand) || run.downloaded.has(basename(operand)))) {
    push(run, 'shell.remote_exec', 'total', true, `${name} runs ${operand}, downloaded earlier in the same command`);
  }
  return operand === undefined || operand === '-';
}

function judgeSocket(run: Run, name: string, args: string[]): void {
  if (args.some((arg) => arg === '-e' || arg === '-c' || arg.startsWith('exec:') || arg.startsWith('EXEC:') || arg.startsWith('SYSTEM:'))) {
    push(run, 'shell.network', 'total', true, `${name} attaches a shell to a network socket (a reverse or bind shell)`);
    return;
  }
  if (args.some((arg) => /^-[a-zA-Z]*l/.test(arg))) {
    push(run, 'shell.network', 'broad', false, `${name} listens for connections from anywhere`);
    return;
  }
  const hostWord = args.find((arg) => !arg.startsWith('-') && !/^\d+$/.test(arg)) ?? '';
  const host = name === 'socat' ? (hostWord.split(':')[1] ?? '') : hostWord;
  const judged = judgeHost(host || 'unknown', true, run.sink.knownHosts);
  push(run, 'shell.network', host ? judged.radius : 'broad', false, `${name} opens a raw connection: ${host ? judged.reason : 'to an unknown host'}`);
}

/** A `host:path` or `user@host:path` operand's host, or '' for a local path. */
function remoteHost(word: string): string {
  if (word.startsWith('/') || word.startsWith('.')) return '';
  const colon = word.indexOf(':');
  if (colon <= 0) return '';
  const at = word.lastIndexOf('@', colon);
  return word.slice(at + 1, colon).toLowerCase();
}

function judgeCopy(run: Run, name: string, args: string[]): void {
  const operands = args.filter((arg) => !arg.startsWith('-'));
  const last = operands[operands.length - 1] ?? '';
  const destination = remoteHost(last);
  if (args.includes('--delete') || args.some((arg) => arg.startsWith('--delete-'))) {
    push(run, 'shell.delete', 'broad', true, `${name} --delete removes files at the destination that the source lacks`);
  }
  if (destination) {
    const judged = judgeHost(destination, true, run.sink.knownHosts);
    push(run, 'shell.network', judged.radius, false, `${name} uploads: ${judged.reason}`);
  } else {
    const source = operands.map(remoteHost).find((host) => host !== '');
    if (source) push(run, 'shell.download', 'narrow', false, `${name} downloads from ${source}`);
  }
}

function judgeSsh(run: Run, args: string[]): void {
  const valueOptions = new Set(['-i', '-p', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-W', '-b', '-c', '-E', '-m', '-S']);
  let host = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (valueOptions.has(arg)) i++;
    else if (!arg.startsWith('-')) {
      host = arg.slice(arg.lastIndexOf('@') + 1).toLowerCase();
      break;
    }
  }
  const judged = judgeHost(host || 'unknown', true, run.sink.knownHosts);
  push(run, 'shell.network', host ? judged.radius : 'broad', false, `ssh runs commands on ${host || 'an unknown host'}${host ? ` (${judged.reason})` : ''}`);
}
