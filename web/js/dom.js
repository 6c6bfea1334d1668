// dom.js - a tiny element builder. The page's Content-Security-Policy
// forbids inline styles and handlers, so everything is built here with
// properties, classes and listeners, never with style="" or onclick="".

/* h('button.primary', {onclick: f, disabled: true}, 'Play') */
export function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className += (el.className ? ' ' : '') + v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'vars') for (const [n, x] of Object.entries(v)) el.style.setProperty(n, x);
    else if (k === 'text') el.textContent = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

export function replace(el, ...children) { clear(el); append(el, children); return el; }

export function $(sel, root = document) { return root.querySelector(sel); }

// Small line icons (inline SVG markup is allowed by the CSP; styles are not).
const ICONS = {
  first: '<path d="M6 5v14M19 5l-10 7 10 7z"/>',
  prev: '<path d="M17 5l-10 7 10 7z"/>',
  play: '<path d="M7 5l12 7-12 7z"/>',
  pause: '<path d="M8 5v14M16 5v14"/>',
  next: '<path d="M5 5l10 7-10 7zM19 5v14"/>',
  last: '<path d="M18 5v14M5 5l10 7-10 7z"/>',
  back: '<path fill="none" d="M15 5l-7 7 7 7"/>',
  link: '<path fill="none" d="M10 14a4 4 0 0 0 5.6 0l3-3a4 4 0 0 0-5.6-5.6l-1 1M14 10a4 4 0 0 0-5.6 0l-3 3a4 4 0 0 0 5.6 5.6l1-1"/>',
  exit: '<path fill="none" d="M14 4h5v16h-5M10 8l-4 4 4 4M6 12h10"/>',
  rotate: '<path fill="none" d="M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"/>',
  sound: '<path d="M4 9h4l5-4v14l-5-4H4z"/><path fill="none" d="M16 9a4 4 0 0 1 0 6M18.5 6.5a7.5 7.5 0 0 1 0 11"/>',
  mute: '<path d="M4 9h4l5-4v14l-5-4H4z"/><path fill="none" d="M16 9l5 6M21 9l-5 6"/>',
  list: '<path fill="none" d="M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01"/>',
  trophy: '<path fill="none" d="M8 4h8v6a4 4 0 0 1-8 0zM8 6H5a3 3 0 0 0 3 4M16 6h3a3 3 0 0 1-3 4M12 14v4M8 20h8"/>',
};

export function icon(name) {
  const span = document.createElement('span');
  span.className = 'icon';
  span.setAttribute('aria-hidden', 'true');
  span.innerHTML = `<svg viewBox="0 0 24 24" width="1em" height="1em" fill="currentColor" stroke="currentColor" stroke-width="2.2" stroke-linejoin="round" stroke-linecap="round">${ICONS[name]}</svg>`;
  return span;
}
