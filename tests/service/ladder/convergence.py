#!/usr/bin/env python3
"""convergence.py - how many ladder deals until the ranking of three
reference players is settled, read from a ddz database's ladder_history.

Usage: convergence.py DB [RULES] [HIGH MIDDLE LOW]
  DB      a SQLite file written by `ddz serve --ladder ...`
  RULES   the ladder's rule set (default caai)
  HIGH MIDDLE LOW  participant names, best first
          (default ai:strong:20 ai:greedy ai:random)

For each deal in the order it was recorded it takes every participant's
rating after it (rows of one deal share `deal`; rows from before schema 5,
a deal played three times at one table, come three to a deal) and prints:
  deals         deals recorded
  ordered_from  the first deal from which HIGH > MIDDLE > LOW held to the
                end (by rating)
  apart_from    the first deal from which each was more than one
                uncertainty above the next (mu - sigma of the higher above
                mu + sigma of the lower) to the end
  final         each one's rating +- uncertainty at the end
The convergence figures of docs/competitions.md ("The ladder") are this script's output.
"""
import sqlite3
import sys


def deals_of(rows):
    """Groups history rows (id order) into deals."""
    out, cur, key = [], [], None
    for r in rows:
        name, mu, sigma, deal = r
        k = deal if deal is not None else None
        if cur and (k != key or (k is None and len(cur) == 3)):
            out.append(cur)
            cur = []
        key = k
        cur.append((name, mu, sigma))
    if cur:
        out.append(cur)
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    db = sys.argv[1]
    rules = sys.argv[2] if len(sys.argv) > 2 else 'caai'
    names = sys.argv[3:6] if len(sys.argv) >= 6 else ['ai:strong:20', 'ai:greedy', 'ai:random']
    con = sqlite3.connect(db)
    rows = con.execute('SELECT name, mu, sigma, deal FROM ladder_history WHERE rules = ?'
                       ' ORDER BY id', (rules,)).fetchall()
    rating = {}
    ordered_from = apart_from = None
    deals = deals_of(rows)
    for i, d in enumerate(deals, 1):
        for name, mu, sigma in d:
            rating[name] = (mu, sigma)
        if not all(n in rating for n in names):
            ordered_from = apart_from = None
            continue
        r = [rating[n] for n in names]
        ordered = r[0][0] > r[1][0] > r[2][0]
        apart = r[0][0] - r[0][1] > r[1][0] + r[1][1] and r[1][0] - r[1][1] > r[2][0] + r[2][1]
        if ordered:
            ordered_from = ordered_from or i
        else:
            ordered_from = None
        if apart:
            apart_from = apart_from or i
        else:
            apart_from = None
    print('deals', len(deals))
    print('ordered_from', ordered_from)
    print('apart_from', apart_from)
    print('final', ' '.join('%s %.1f+-%.1f' % (n, *rating[n]) for n in names if n in rating))
    return 0


if __name__ == '__main__':
    sys.exit(main())
