// A schema change refused: the messages the schema API joins into its error (400). Its own module,
// so that what checks schema (migrate.ts, reached from Collection.update) needs no push machinery.

export class SchemaRefused extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join('\n'));
  }
}
