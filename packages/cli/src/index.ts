/**
 * The `weft` command's pieces, for tools that embed it: `main` runs a whole command line, the others one
 * command each; every one returns an exit code.
 *
 * @module @weft/cli
 */
export { userErrorLine, vertexIdOption } from './args.ts';
export { CLI_COMMANDS, main, USAGE } from './cli.ts';
export { CONVERT_USAGE, convertCommand } from './convert.ts';
export { type GraphInfo, INFO_USAGE, infoCommand } from './info.ts';
export type { Io } from './io.ts';
export { RUN_USAGE, runCommand } from './run.ts';
