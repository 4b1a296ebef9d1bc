// What every screen of the workspace is: an element, opened (again) with a client scoped to the
// selected database. Screens that ignore the database (the query log) still get the signed-in key.

import type { FloraClient } from './client';

export interface Panel {
  /** Names the tab (`tab-<id>`) and is the panel element's `data-panel`. */
  readonly id: string;
  readonly label: string;
  readonly element: HTMLElement;
  open(client: FloraClient): void;
}
