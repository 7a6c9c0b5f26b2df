import { userErrorLine } from './args.ts';
import { CONVERT_USAGE, convertCommand } from './convert.ts';
import { INFO_USAGE, infoCommand } from './info.ts';
import { type Io, processIo } from './io.ts';
import { RUN_USAGE, runCommand } from './run.ts';

const COMMANDS: Record<string, { run: (args: string[], io: Io) => Promise<number>; usage: string }> = {
  run: { run: runCommand, usage: RUN_USAGE },
  convert: { run: convertCommand, usage: CONVERT_USAGE },
  info: { run: infoCommand, usage: INFO_USAGE },
};

export const USAGE = `usage: weft <command> [options]   (weft <command> --help for its options)

  run <algorithm> <graph-file>     run one GPU algorithm on a graph file, print its times, write its result
  convert <input> <output>         convert between .mtx, .gr, edge lists and .wcsr
  info <graph-file>                vertices, arcs, degrees and connected components of a graph file
`;

/** The names `weft` takes as commands. */
export const CLI_COMMANDS = Object.keys(COMMANDS);

/**
 * Runs `weft <command> ...args` and returns its exit code: 0, or 2 for an error the user made, printed as one
 * `weft: <message>` line. Other errors (bugs) are rethrown with their stacks.
 */
export async function main(args: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.err(`weft: unknown command '${name}' (known: ${CLI_COMMANDS.join(', ')})\n`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    const line = userErrorLine(e);
    if (line === undefined) throw e;
    io.err(`weft: ${line}\n`);
    return 2;
  }
}
