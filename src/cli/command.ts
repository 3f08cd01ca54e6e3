// The shape every `spica <command>` module exports. Commands live one per file under
// src/cli/commands/ and are loaded lazily so `spica validate` never pays for the Temporal SDK.

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (live progress bars only then). */
  isTty: boolean;
}

export interface Command {
  name: string;
  summary: string;
  /** Full `--help` text. */
  usage: string;
  /** Returns the process exit code (README "Exit codes"). Throw SpicaError for clean failures. */
  run(argv: string[], io: CommandIo): Promise<number>;
}
