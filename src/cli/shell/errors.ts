// Failures of the shell and eval commands whose message says all the user needs (printed as
// `Error: <message>`, never with a stack).

export class ShellError extends Error {}
