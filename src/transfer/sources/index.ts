// Readers of what a Fauna user holds (snapshot exports, driver dumps) for `flora import`.

export { openSource } from './openSource';
export { SourceError } from './types';
export type { Origin, ReadOptions, Source, SourceCredential, SourceDescription, SourceDocument, SourceFile, SourceFormat, SourceItem } from './types';
