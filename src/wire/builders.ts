// The FQL v4 form table (wire.md §3, fql-v4.md §3): every head key with its argument keys,
// and recognition of a call by its WHOLE key set (many parameter names are also heads).

export interface FormSpec {
  /** Keys that must be present besides the head. */
  readonly required: readonly string[];
  /** Keys that may be present. */
  readonly optional: readonly string[];
  /** The head the evaluator dispatches on (deprecated aliases map to their replacement). */
  readonly canonical: string;
  /** At most one of these keys may be present (they select different forms in Fauna). */
  readonly exclusive?: readonly string[];
  /** Argument key that must hold a literal `{"lambda":…,"expr":…}` (lambdas are syntactic). */
  readonly lambdaArg?: string;
  /** Head + required + optional. */
  readonly allowed: ReadonlySet<string>;
}

const FORM_LIST: [head: string, required?: string, optional?: string, extra?: Partial<FormSpec>][] = [
  // basic / control
  ['abort'], ['at', 'expr'], ['let', 'in'], ['var'], ['if', 'then else'], ['do'], ['object'], ['quote'],
  ['lambda', 'expr'], ['call', '', 'arguments'], ['query', '', '', { lambdaArg: 'query' }],
  ['new_id'], ['next_id', '', '', { canonical: 'new_id' }],
  // collections
  ['map', 'collection', '', { lambdaArg: 'map' }],
  ['foreach', 'collection', '', { lambdaArg: 'foreach' }],
  ['filter', 'collection', '', { lambdaArg: 'filter' }],
  ['reduce', 'initial collection', '', { lambdaArg: 'reduce' }],
  ['take', 'collection'], ['drop', 'collection'], ['prepend', 'collection'], ['append', 'collection'],
  ['is_empty'], ['is_nonempty'], ['first'], ['last'], ['reverse'],
  // sets and reads
  ['get', '', 'ts'], ['exists', '', 'ts'], ['key_from_secret'],
  ['paginate', '', 'size after before cursor ts events sources', { exclusive: ['after', 'before', 'cursor'] }],
  ['singleton'], ['events'], ['documents'], ['distinct'],
  ['match', '', 'terms index', { exclusive: ['terms', 'index'] }],
  ['union'], ['intersection'], ['difference'],
  ['merge', 'with', 'lambda', { lambdaArg: 'lambda' }],
  ['join', 'with'], ['range', 'from to'],
  // writes
  ['create', '', 'params'], ['update', '', 'params'], ['replace', '', 'params'], ['delete'],
  ['insert', 'ts action', 'params'], ['remove', 'ts action'],
  ['create_collection'], ['create_class', '', '', { canonical: 'create_collection' }],
  ['create_database'], ['create_index'], ['create_key'], ['create_function'], ['create_role'],
  ['create_access_provider'], ['move_database', 'to'],
  // auth
  ['login', 'params'], ['logout'], ['identify', 'password'],
  ['current_identity'], ['identity', '', '', { canonical: 'current_identity' }],
  ['has_current_identity'], ['has_identity', '', '', { canonical: 'has_current_identity' }],
  ['current_token'], ['has_current_token'],
  // strings
  ['concat', '', 'separator'], ['casefold', '', 'normalizer'],
  ['containsstr', 'search'], ['containsstrregex', 'pattern'], ['startswith', 'search'], ['endswith', 'search'],
  ['regexescape'], ['findstr', 'find', 'start'], ['findstrregex', 'pattern', 'start num_results'],
  ['length'], ['lowercase'], ['uppercase'], ['titlecase'], ['ltrim'], ['rtrim'], ['trim'],
  ['ngram', '', 'min max'], ['repeat', '', 'number'], ['replacestr', 'find replace'],
  ['replacestrregex', 'pattern replace', 'first'], ['space'], ['substring', '', 'start length'],
  ['format', '', 'values'],
  // time
  ['time'], ['epoch', 'unit'], ['time_add', 'offset unit'], ['time_subtract', 'offset unit'],
  ['time_diff', 'other unit'], ['date'], ['now'],
  // refs
  ['ref', 'id', 'scope'],
  ['database', '', 'scope'], ['index', '', 'scope'], ['collection', '', 'scope'], ['function', '', 'scope'],
  ['role', '', 'scope'], ['class', '', 'scope', { canonical: 'collection' }], ['access_provider'],
  ['databases'], ['indexes'], ['collections'], ['classes', '', '', { canonical: 'collections' }],
  ['functions'], ['roles'], ['access_providers'], ['keys'], ['tokens'], ['credentials'],
  // objects / selection
  ['equals'], ['contains_path', 'in'], ['contains', 'in', '', { canonical: 'contains_path' }],
  ['contains_field', 'in'], ['contains_value', 'in'],
  ['select', 'from', 'default all'], ['select_all', 'from', 'default'],
  ['select_as_index', 'from', 'default', { canonical: 'select_all' }],
  // math
  ['abs'], ['add'], ['bitand'], ['bitnot'], ['bitor'], ['bitxor'], ['ceil'], ['divide'], ['floor'],
  ['max'], ['min'], ['modulo'], ['multiply'], ['round', '', 'precision'], ['subtract'], ['sign'],
  ['sqrt'], ['trunc', '', 'precision'], ['count'], ['sum'], ['mean'], ['any'], ['all'],
  ['acos'], ['asin'], ['atan'], ['cos'], ['cosh'], ['degrees'], ['exp'], ['hypot', '', 'b'], ['ln'],
  ['log'], ['pow', '', 'exp'], ['radians'], ['sin'], ['sinh'], ['tan'], ['tanh'],
  // logic
  ['lt'], ['lte'], ['gt'], ['gte'], ['and'], ['or'], ['not'],
  // conversions and time fields
  ['to_string'], ['to_number'], ['to_object'], ['to_array'], ['to_double'], ['to_integer'], ['to_time'],
  ['to_date'], ['to_seconds'], ['to_millis'], ['to_micros'],
  ['day_of_month'], ['day_of_week'], ['day_of_year'], ['hour'], ['minute'], ['second'], ['month'], ['year'],
  // type checks
  ...[
    'number', 'double', 'integer', 'boolean', 'null', 'bytes', 'timestamp', 'date', 'string', 'array',
    'object', 'ref', 'set', 'doc', 'lambda', 'collection', 'database', 'index', 'function', 'key', 'token',
    'credentials', 'role',
  ].map((t): [string] => [`is_${t}`]),
];

const words = (s: string | undefined): string[] => (s ? s.split(' ') : []);

/** Head key → form. */
export const FORMS: ReadonlyMap<string, FormSpec> = new Map(
  FORM_LIST.map(([head, req, opt, extra]) => {
    const required = words(req);
    const optional = words(opt);
    const spec: FormSpec = {
      required,
      optional,
      canonical: extra?.canonical ?? head,
      exclusive: extra?.exclusive,
      lambdaArg: extra?.lambdaArg,
      allowed: new Set([head, ...required, ...optional]),
    };
    return [head, spec] as const;
  }),
);

/**
 * The driver's 206 builders (faunadb/src/query.js) and the head key each emits.
 * `Ref` also has the one-argument `{"@ref": path}` form and `Bytes` builds a `@bytes` value.
 */
export const BUILDERS: readonly (readonly [name: string, head: string])[] = [
  ['Ref', 'ref'], ['Bytes', '@bytes'], ['Abort', 'abort'], ['At', 'at'], ['Let', 'let'], ['Var', 'var'],
  ['If', 'if'], ['Do', 'do'], ['Object', 'object'], ['Lambda', 'lambda'], ['Call', 'call'], ['Query', 'query'],
  ['Map', 'map'], ['Foreach', 'foreach'], ['Filter', 'filter'], ['Take', 'take'], ['Drop', 'drop'],
  ['Prepend', 'prepend'], ['Append', 'append'], ['IsEmpty', 'is_empty'], ['IsNonEmpty', 'is_nonempty'],
  ['IsNumber', 'is_number'], ['IsDouble', 'is_double'], ['IsInteger', 'is_integer'], ['IsBoolean', 'is_boolean'],
  ['IsNull', 'is_null'], ['IsBytes', 'is_bytes'], ['IsTimestamp', 'is_timestamp'], ['IsDate', 'is_date'],
  ['IsString', 'is_string'], ['IsArray', 'is_array'], ['IsObject', 'is_object'], ['IsRef', 'is_ref'],
  ['IsSet', 'is_set'], ['IsDoc', 'is_doc'], ['IsLambda', 'is_lambda'], ['IsCollection', 'is_collection'],
  ['IsDatabase', 'is_database'], ['IsIndex', 'is_index'], ['IsFunction', 'is_function'], ['IsKey', 'is_key'],
  ['IsToken', 'is_token'], ['IsCredentials', 'is_credentials'], ['IsRole', 'is_role'], ['Get', 'get'],
  ['KeyFromSecret', 'key_from_secret'], ['Reduce', 'reduce'], ['Paginate', 'paginate'], ['Exists', 'exists'],
  ['Create', 'create'], ['Update', 'update'], ['Replace', 'replace'], ['Delete', 'delete'], ['Insert', 'insert'],
  ['Remove', 'remove'], ['CreateClass', 'create_class'], ['CreateCollection', 'create_collection'],
  ['CreateDatabase', 'create_database'], ['CreateIndex', 'create_index'], ['CreateKey', 'create_key'],
  ['CreateFunction', 'create_function'], ['CreateRole', 'create_role'],
  ['CreateAccessProvider', 'create_access_provider'], ['Singleton', 'singleton'], ['Events', 'events'],
  ['Match', 'match'], ['Union', 'union'], ['Merge', 'merge'], ['Intersection', 'intersection'],
  ['Difference', 'difference'], ['Distinct', 'distinct'], ['Join', 'join'], ['Range', 'range'],
  ['Login', 'login'], ['Logout', 'logout'], ['Identify', 'identify'], ['Identity', 'identity'],
  ['CurrentIdentity', 'current_identity'], ['HasIdentity', 'has_identity'],
  ['HasCurrentIdentity', 'has_current_identity'], ['CurrentToken', 'current_token'],
  ['HasCurrentToken', 'has_current_token'], ['Concat', 'concat'], ['Casefold', 'casefold'],
  ['ContainsStr', 'containsstr'], ['ContainsStrRegex', 'containsstrregex'], ['StartsWith', 'startswith'],
  ['EndsWith', 'endswith'], ['FindStr', 'findstr'], ['FindStrRegex', 'findstrregex'], ['Length', 'length'],
  ['LowerCase', 'lowercase'], ['LTrim', 'ltrim'], ['NGram', 'ngram'], ['Repeat', 'repeat'],
  ['ReplaceStr', 'replacestr'], ['ReplaceStrRegex', 'replacestrregex'], ['RegexEscape', 'regexescape'],
  ['RTrim', 'rtrim'], ['Space', 'space'], ['SubString', 'substring'], ['TitleCase', 'titlecase'],
  ['Trim', 'trim'], ['UpperCase', 'uppercase'], ['Format', 'format'], ['Time', 'time'],
  ['TimeAdd', 'time_add'], ['TimeSubtract', 'time_subtract'], ['TimeDiff', 'time_diff'], ['Epoch', 'epoch'],
  ['Date', 'date'], ['Now', 'now'], ['NextId', 'next_id'], ['NewId', 'new_id'], ['Database', 'database'],
  ['Index', 'index'], ['Class', 'class'], ['Collection', 'collection'], ['Function', 'function'],
  ['Role', 'role'], ['AccessProviders', 'access_providers'], ['Classes', 'classes'],
  ['Collections', 'collections'], ['Databases', 'databases'], ['Indexes', 'indexes'],
  ['Functions', 'functions'], ['Roles', 'roles'], ['Keys', 'keys'], ['Tokens', 'tokens'],
  ['Credentials', 'credentials'], ['Equals', 'equals'], ['Contains', 'contains'],
  ['ContainsPath', 'contains_path'], ['ContainsField', 'contains_field'], ['ContainsValue', 'contains_value'],
  ['Select', 'select'], ['SelectAll', 'select_all'], ['Abs', 'abs'], ['Add', 'add'], ['BitAnd', 'bitand'],
  ['BitNot', 'bitnot'], ['BitOr', 'bitor'], ['BitXor', 'bitxor'], ['Ceil', 'ceil'], ['Divide', 'divide'],
  ['Floor', 'floor'], ['Max', 'max'], ['Min', 'min'], ['Modulo', 'modulo'], ['Multiply', 'multiply'],
  ['Round', 'round'], ['Subtract', 'subtract'], ['Sign', 'sign'], ['Sqrt', 'sqrt'], ['Trunc', 'trunc'],
  ['Count', 'count'], ['Sum', 'sum'], ['Mean', 'mean'], ['Any', 'any'], ['All', 'all'], ['Acos', 'acos'],
  ['Asin', 'asin'], ['Atan', 'atan'], ['Cos', 'cos'], ['Cosh', 'cosh'], ['Degrees', 'degrees'],
  ['Exp', 'exp'], ['Hypot', 'hypot'], ['Ln', 'ln'], ['Log', 'log'], ['Pow', 'pow'], ['Radians', 'radians'],
  ['Sin', 'sin'], ['Sinh', 'sinh'], ['Tan', 'tan'], ['Tanh', 'tanh'], ['LT', 'lt'], ['LTE', 'lte'],
  ['GT', 'gt'], ['GTE', 'gte'], ['And', 'and'], ['Or', 'or'], ['Not', 'not'], ['ToString', 'to_string'],
  ['ToNumber', 'to_number'], ['ToObject', 'to_object'], ['ToArray', 'to_array'], ['ToDouble', 'to_double'],
  ['ToInteger', 'to_integer'], ['ToTime', 'to_time'], ['ToSeconds', 'to_seconds'], ['ToMicros', 'to_micros'],
  ['ToMillis', 'to_millis'], ['DayOfMonth', 'day_of_month'], ['DayOfWeek', 'day_of_week'],
  ['DayOfYear', 'day_of_year'], ['Second', 'second'], ['Minute', 'minute'], ['Hour', 'hour'],
  ['Month', 'month'], ['Year', 'year'], ['ToDate', 'to_date'], ['MoveDatabase', 'move_database'],
  ['Documents', 'documents'], ['Reverse', 'reverse'], ['AccessProvider', 'access_provider'],
];

export const BUILDER_NAMES: string[] = BUILDERS.map((b) => b[0]);

/** Builder name → the head key it emits. */
export const BUILDER_HEADS: ReadonlyMap<string, string> = new Map(BUILDERS);

export interface RecognizedForm {
  head: string;
  canonical: string;
  spec: FormSpec;
}

function fits(spec: FormSpec, keys: { has(k: string): boolean }, keyList: Iterable<string>): boolean {
  for (const k of keyList) if (!spec.allowed.has(k)) return false;
  for (const r of spec.required) if (!keys.has(r)) return false;
  if (spec.exclusive) {
    let n = 0;
    for (const x of spec.exclusive) if (keys.has(x)) n++;
    if (n > 1) return false;
  }
  return true;
}

/**
 * Recognises a form from an object's keys (a Map, or anything with has() and key iteration):
 * the head is the key K whose form lists every other key as a parameter and whose required
 * keys are all present. The table is built so that at most one head fits any key set.
 */
export function matchForm(obj: ReadonlyMap<string, unknown>): RecognizedForm | undefined {
  if (obj.size === 1) {
    // Fast path: the common single-key call.
    const head = obj.keys().next().value as string;
    const spec = FORMS.get(head);
    return spec && spec.required.length === 0 ? { head, canonical: spec.canonical, spec } : undefined;
  }
  for (const head of obj.keys()) {
    const spec = FORMS.get(head);
    if (spec && fits(spec, obj, obj.keys())) return { head, canonical: spec.canonical, spec };
  }
  return undefined;
}

export function recognizeForm(keys: string[]): { head: string; canonical: string } | undefined {
  const set = new Set(keys);
  for (const head of set) {
    const spec = FORMS.get(head);
    if (spec && fits(spec, set, set)) return { head, canonical: spec.canonical };
  }
  return undefined;
}

/** Fauna's text for an object that is neither a form nor an escape. */
export function noFormMessage(keys: Iterable<string>): string {
  return `No form/function found, or invalid argument keys: { ${[...keys].join(', ')} }.`;
}
