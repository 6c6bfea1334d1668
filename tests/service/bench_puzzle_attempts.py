#!/usr/bin/env python3
# bench_puzzle_attempts.py DDZ PUZZLES.jsonl - how long the server takes to
# check a puzzle's line (POST /api/puzzles/ID/attempt), best defence
# included (docs/benchmarks.md, "Puzzles"). Stocks a fresh `ddz serve`'s
# database with the puzzles `ddz puzzles` listed, then solves every one
# through the API as a guest: at each turn a candidate (a pass, else the
# lowest card) is tried, and when it fails the answer's winning plays are
# taken; every request is timed. Prints the puzzles solved and the
# requests' latency.
import json, sqlite3, subprocess, time, urllib.request, urllib.error, socket, sys, os, tempfile
ddz=sys.argv[1]
src=sys.argv[2]
s=socket.socket(); s.bind(('127.0.0.1',0)); port=s.getsockname()[1]; s.close()
tmp=tempfile.mkdtemp()
db=os.path.join(tmp,'pz.db')
srv=subprocess.Popen([ddz,'serve','--port',str(port),'--bind','127.0.0.1','--db',db,'--quiet'])
base=f'http://127.0.0.1:{port}'
def up():
    for _ in range(200):
        try: urllib.request.urlopen(base+'/healthz'); return
        except Exception: time.sleep(0.05)
up(); srv.terminate(); srv.wait()
con=sqlite3.connect(db)
for line in open(src):
    p=json.loads(line)
    con.execute("INSERT INTO puzzles(game,ply,rules,hands,landlord,turn,last,last_by,side,solutions,moves,difficulty,rating,deviation,created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,1500,350,0)",
      (p['game']+1,p['ply'],p['rules'],json.dumps(p['hands']),p['landlord'],p['turn'],None if p['last'] is None else json.dumps(p['last']),p['last_by'],p['side'],json.dumps(p['solutions']),p['moves'],p['difficulty']))
con.commit(); con.close()
srv=subprocess.Popen([ddz,'serve','--port',str(port),'--bind','127.0.0.1','--db',db,'--quiet']); up()
def post(pid, plays):
    req=urllib.request.Request(f'{base}/api/puzzles/{pid}/attempt', data=json.dumps({'plays':plays}).encode(), method='POST', headers={'Content-Type':'application/json'})
    t=time.time()
    try:
        r=urllib.request.urlopen(req); body=json.loads(r.read()); st=200
    except urllib.error.HTTPError as e:
        body=json.loads(e.read()); st=e.code
    return st, body, (time.time()-t)*1000
times=[]; solved=0; errors=0; n=0
ids=[r[0] for r in sqlite3.connect(db).execute('SELECT id FROM puzzles ORDER BY id')]
for pid in ids:
    p=json.loads(urllib.request.urlopen(f'{base}/api/puzzles/{pid}').read())
    plays=[]
    hand=set(p['hands'][p['turn']])
    for step in range(30):
        # oracle: lowest single or pass
        st,b,ms=post(pid, plays+[[]]); times.append(ms)
        if st==200 and b['result']!='failed': w=[]
        elif st==200: w=b['solutions'][0]
        else:
            c=[min(hand)]
            st,b,ms=post(pid, plays+[c]); times.append(ms)
            if st!=200: errors+=1; break
            w=c if b['result']!='failed' else b['solutions'][0]
        plays.append(w); hand-=set(w)
        st,b,ms=post(pid, plays); times.append(ms)
        if st!=200: errors+=1; print(pid, st, b); break
        if b['result']=='solved': solved+=1; break
        assert b['result']=='continue', b
srv.terminate(); srv.wait()
times.sort()
print(f'puzzles {len(ids)} solved {solved} errors {errors} requests {len(times)} p50 {times[len(times)//2]:.1f} ms p90 {times[int(len(times)*.9)]:.1f} p99 {times[int(len(times)*.99)]:.1f} max {times[-1]:.1f}')
import shutil; shutil.rmtree(tmp)
