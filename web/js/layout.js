// layout.js - where each card of a hand goes when the hand is laid out in
// rows for touch (narrow screens): no more than PER_ROW cards a row, so
// that a whole hand (20 cards) takes two rows at most, rows of balanced length, the strongest cards in the first row as they are
// read. The CSS places the cards from these numbers; wide screens ignore
// them and fan the hand in one row.

// 10 cards a row, about 31 px apart on a 360 px phone, 34 px on a 390 px
// one: a third row took the table's height (issue 38; app.css's phone
// hand divides the row's width by PER_ROW - 1)
export const PER_ROW = 10;

/* handRows(n) -> {rows, cells: [{r, c, k}]}: for card i of n, its row r,
 * its column c in that row, and the number of cards k in that row. Never
 * fails; n = 0 gives no rows. */
export function handRows(n, perRow = PER_ROW) {
  if (n <= 0) return { rows: 0, cells: [] };
  const rows = Math.ceil(n / perRow);
  const k = Math.ceil(n / rows);
  const cells = [];
  for (let i = 0; i < n; i++) {
    const r = Math.floor(i / k);
    const inRow = Math.min(k, n - r * k);
    cells.push({ r, c: i - r * k, k: inRow });
  }
  return { rows, cells };
}
