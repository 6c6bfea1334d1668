// a11y.js - what a keyboard or a screen reader needs at the table: a live
// region that reads out turns, plays and results, and a modal panel that
// keeps the focus to itself (the rest of the page inert behind it).
import { h } from './dom.js';

/* A visually hidden polite live region; say() adds a line to it. */
export function liveRegion() {
  return h('div.sr-only', { 'aria-live': 'polite', 'aria-relevant': 'additions', role: 'log', dataset: { test: 'announce' } });
}

const KEEP = 8; // lines kept: events come faster than a reader reads

/* Reads `text` out through `region`: a line added is read, the oldest
 * beyond KEEP are dropped. */
export function say(region, text) {
  if (!region || !text) return;
  region.append(h('p', text));
  while (region.childElementCount > KEEP) region.firstElementChild.remove();
}

/* Makes every element of `behind` inert (no focus, no clicks, hidden from
 * assistive technology) or lets them be again. */
export function setInert(behind, on) {
  for (const el of behind) {
    if (!el) continue;
    el.inert = on;
    if (on) el.setAttribute('aria-hidden', 'true');
    else el.removeAttribute('aria-hidden');
  }
}

const FOCUSABLE = 'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), summary, [tabindex]:not([tabindex="-1"])';

/* Keeps Tab and Shift+Tab inside `panel`: from its last focusable element
 * to its first and back. Returns true when it moved the focus. */
export function trapTab(panel, e) {
  if (e.key !== 'Tab' || !panel) return false;
  const items = [...panel.querySelectorAll(FOCUSABLE)].filter((x) => x.getClientRects().length);
  if (!items.length) return false;
  const first = items[0], last = items[items.length - 1];
  const inside = panel.contains(document.activeElement);
  if (e.shiftKey && (document.activeElement === first || !inside)) {
    e.preventDefault();
    last.focus();
    return true;
  }
  if (!e.shiftKey && (document.activeElement === last || !inside)) {
    e.preventDefault();
    first.focus();
    return true;
  }
  return false;
}
