// poller.js - a page that shows what GET of one URL answers and fetches it
// again every few seconds while shown (not while the tab is hidden): the
// competition page and the ladder pages. A subclass gives fetch() (the
// data, or null) and render() (from this.data: undefined while loading).
const POLL_MS = 3000;

export class Poller {
  mount(root) {
    this.root = root;
    this.data = undefined;
    this.render();
    this.poll();
    this.timer = setInterval(() => { if (!document.hidden) this.poll(); }, POLL_MS);
  }

  unmount() {
    clearInterval(this.timer);
    this.root = null;
  }

  onLang() { this.render(); }

  async poll() {
    const d = await this.fetch();
    if (!this.root) return;
    this.data = d;
    this.render();
  }
}
