// Size limits the standard library enforces (StringPrototype.MaxSize, ArrayPrototype.MaxSize).

/** Longest string a query may build, in UTF-16 code units. */
export const MAX_STRING_SIZE = 16 * 1024 * 1024;
/** Longest array `Array.sequence` builds. */
export const MAX_ARRAY_SIZE = 16_000;
