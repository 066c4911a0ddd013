import type { ComponentChild } from 'preact';
import { render } from 'preact';
import { wireShell } from './shell.ts';

/** The initial data the server rendered into the page (`<script type="application/json" id="page-data">`). */
export function readPageData<T>(): T {
  const node = document.getElementById('page-data');
  return JSON.parse(node?.textContent ?? 'null') as T;
}

/** Wires the app shell's header and mounts the page's component into #app. */
export function mountPage<T>(view: (data: T) => ComponentChild) {
  wireShell();
  const root = document.getElementById('app');
  if (root) render(view(readPageData<T>()), root);
}
