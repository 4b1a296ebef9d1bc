/// <reference lib="dom" />
// Stands in for the package react-style-singleton in the GraphiQL bundle (scripts/bundleAdmin.js
// aliases the package to this file). GraphiQL's dialogs (settings, short keys) lock the page's
// scrolling through react-remove-scroll, which adds its rules as a <style> element: the dashboard's
// CSP (style-src 'self', no 'unsafe-inline') refuses that, and the browser reports a violation. The
// same rules as a constructed stylesheet (document.adoptedStyleSheets) apply: CSP guards against
// styles injected with markup, and a constructed sheet can only come from a script, which
// script-src already limits to the dashboard's own files. So the CSP stays as strict as it is.

import { useEffect } from 'react';

interface SheetProps {
  styles: string;
  dynamic?: boolean;
}

/** The package's styleSingleton: a component whose `styles` apply while at least one instance is mounted. */
export function styleSingleton(): (props: SheetProps) => null {
  let mounted = 0;
  let sheet: CSSStyleSheet | undefined;
  const add = (styles: string) => {
    if (mounted++ > 0) return;
    sheet = new CSSStyleSheet();
    sheet.replaceSync(styles);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  };
  const remove = () => {
    if (--mounted > 0 || !sheet) return;
    const gone = sheet;
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== gone);
    sheet = undefined;
  };
  return function Sheet({ styles, dynamic }: SheetProps) {
    // As the package does: the styles are read again only when `dynamic` says they change.
    useEffect(() => {
      add(styles);
      return remove;
    }, [dynamic && styles]);
    return null;
  };
}
