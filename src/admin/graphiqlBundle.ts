/// <reference lib="dom" />
// The entry of dist/admin/graphiql.js (scripts/bundleAdmin.js builds it apart from app.js, React in
// production mode): GraphiQL, rendered where the GraphQL tab asks, through the fetcher it passes,
// and the served schema printed as SDL (graphql-js comes with GraphiQL).
// It knows nothing of Flora: the tab's fetcher carries the secret and the database.

import { createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { GraphiQL, type GraphiQLProps } from 'graphiql';
import { buildClientSchema, getIntrospectionQuery, isSpecifiedScalarType, printType, type IntrospectionQuery } from 'graphql';
import type { GraphiqlHost } from './graphiqlLoader';

const FIRST_QUERY = `# GraphQL on the selected database: its imported schema (see the Docs, the book icon on the left).
# Ctrl+Enter runs the operation; Ctrl+Space completes a field.
`;

const roots = new WeakMap<HTMLElement, Root>();

const host: GraphiqlHost = {
  render(element, fetcher, session) {
    let root = roots.get(element);
    if (!root) {
      root = createRoot(element);
      roots.set(element, root);
    }
    root.render(
      createElement(GraphiQL, {
        // Its answer pane keeps an error (say, "No GraphQL schema…") after the schema changed: a
        // new session (another database, a new import) remounts it, the query kept in localStorage.
        key: session,
        fetcher: fetcher as GraphiQLProps['fetcher'],
        defaultQuery: FIRST_QUERY,
        // The signed-in secret authorizes every request; a header typed here could only confuse that.
        isHeadersEditorEnabled: false,
        shouldPersistHeaders: false,
        // The dashboard around it is light.
        forcedTheme: 'light',
      }),
    );
  },
  async schemaText(fetcher) {
    const answer = (await fetcher({ query: getIntrospectionQuery(), operationName: 'IntrospectionQuery' })) as { data?: IntrospectionQuery | null; errors?: { message: string }[] };
    if (!answer.data) throw new Error(answer.errors?.[0]?.message ?? 'The server answered the introspection query without a schema.');
    // Its types, without the directive definitions and built-in scalars every Flora schema has.
    const types = Object.values(buildClientSchema(answer.data).getTypeMap()).filter((t) => !t.name.startsWith('__') && !isSpecifiedScalarType(t));
    return types.map(printType).join('\n\n');
  },
};

window.floraGraphiql = host;
