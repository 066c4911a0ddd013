import type { Container } from '../container.ts';

/** What a command prints: JSON with --json, else text. */
export interface CommandResult {
  json: unknown;
  text: string;
  /** The process's exit code when the command ran but found a problem (books verify: 1). Default 0. */
  exitCode?: number;
}

export interface Command<P extends { json?: boolean } = { json?: boolean }> {
  words: string[];
  parse(args: string[]): P;
  run(container: Container, parsed: P): Promise<CommandResult>;
}

/** A command with its own parsed options, kept in the one list of commands. */
export const define = <P extends { json?: boolean }>(command: Command<P>) => command as unknown as Command;
