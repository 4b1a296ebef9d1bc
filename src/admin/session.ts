// The signed-in secret lives in sessionStorage only: it goes with the tab, never to disk for long
// or to other tabs.

const KEY = 'flora.secret';

export function storedSecret(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeSecret(secret: string): void {
  sessionStorage.setItem(KEY, secret);
}

export function forgetSecret(): void {
  sessionStorage.removeItem(KEY);
}
